import { DndContext, type DragEndEvent, PointerSensor, useDraggable, useDroppable, useSensor, useSensors } from '@dnd-kit/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useLocation } from '../router';
import { ErrorAlert, Loading, PageHeading } from '../ui/page';
import { AnalyticsSection } from './analytics-section';
import { WidgetForm } from './widget-form';
import {
  createWidget,
  deleteWidget,
  formatValue,
  listWidgets,
  savePositions,
  updateWidget,
  type Widget,
  type WidgetConfig,
  widgetTitle,
  WIDGETS,
} from './widgets.api';
import './dashboards.css';

// Each member's own widgets (§2 Dashboard widget, docs/analytics.md): values computed by the API
// when read, asked again every minute and when the window regains the focus; reordered by dragging
// a widget's handle onto another widget (or with "Move earlier" / "Move later"), the positions
// saved through /rest/v1; added, edited and removed. Analytics (/dashboards/analytics): the
// reporting endpoints' charts.
export function DashboardsPage() {
  const { path } = useLocation();
  const analytics = path === '/dashboards/analytics';
  return (
    <>
      <PageHeading>{analytics ? 'Analytics' : 'Dashboards'}</PageHeading>
      <nav aria-label="Dashboards" className="subnav">
        <ul>
          <li>
            <Link to="/dashboards">Your widgets</Link>
          </li>
          <li>
            <Link to="/dashboards/analytics">Analytics</Link>
          </li>
        </ul>
      </nav>
      {analytics ? <AnalyticsSection /> : <WidgetsSection />}
    </>
  );
}

function WidgetsSection() {
  const queryClient = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const widgets = useQuery({ queryKey: WIDGETS, queryFn: listWidgets, refetchInterval: 60_000, refetchOnWindowFocus: 'always' });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: WIDGETS });
  const create = useMutation({
    mutationFn: createWidget,
    onSuccess: () => {
      setAdding(false);
      refresh();
    },
  });
  const update = useMutation({
    mutationFn: (change: { id: string; config: WidgetConfig }) => updateWidget(change.id, { widget_config: change.config }),
    onSuccess: () => {
      setEditing(null);
      refresh();
    },
  });
  const remove = useMutation({ mutationFn: deleteWidget, onSettled: refresh });
  const reorder = useMutation({
    mutationFn: savePositions,
    onMutate: (order) => queryClient.setQueryData(WIDGETS, order),
    onSettled: refresh,
  });
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 6 } }));
  const list = widgets.data ?? [];
  const move = (from: number, to: number) => {
    if (to < 0 || to >= list.length || from === to) return;
    const order = [...list];
    const [moved] = order.splice(from, 1);
    order.splice(to, 0, moved);
    reorder.mutate(order);
  };
  function onDragEnd(event: DragEndEvent) {
    if (!event.over) return;
    move(
      list.findIndex((widget) => widget.id === event.active.id),
      list.findIndex((widget) => widget.id === event.over?.id),
    );
  }
  return (
    <>
      <p className="muted small">Your own widgets: other members have theirs. Drag a widget by its handle onto another to reorder them.</p>
      {adding ? (
        <WidgetForm
          error={create.error}
          pending={create.isPending}
          onCancel={() => setAdding(false)}
          onSave={(type, config) => create.mutate({ widget_type: type, widget_config: config, position: list.length * 10 })}
        />
      ) : (
        <button type="button" className="primary" onClick={() => setAdding(true)}>
          Add widget
        </button>
      )}
      {widgets.isPending ? <Loading what="your widgets" /> : null}
      <ErrorAlert error={widgets.error ?? remove.error ?? reorder.error} />
      {widgets.data && widgets.data.length === 0 ? <p className="muted">No widgets. Add one to see a figure here.</p> : null}
      <DndContext sensors={sensors} onDragEnd={onDragEnd}>
        <div className="widget-grid">
          {list.map((widget, index) =>
            editing === widget.id ? (
              <div key={widget.id} className="widget editing">
                <WidgetForm
                  widget={widget}
                  error={update.error}
                  pending={update.isPending}
                  onCancel={() => setEditing(null)}
                  onSave={(_type, config) => update.mutate({ id: widget.id, config })}
                />
              </div>
            ) : (
              <WidgetCard
                key={widget.id}
                widget={widget}
                first={index === 0}
                last={index === list.length - 1}
                onMove={(step) => move(index, index + step)}
                onEdit={() => setEditing(widget.id)}
                onRemove={() => remove.mutate(widget.id)}
              />
            ),
          )}
        </div>
      </DndContext>
    </>
  );
}

function WidgetCard({
  widget,
  first,
  last,
  onMove,
  onEdit,
  onRemove,
}: {
  widget: Widget;
  first: boolean;
  last: boolean;
  onMove: (step: number) => void;
  onEdit: () => void;
  onRemove: () => void;
}) {
  const title = widgetTitle(widget);
  const titleId = useId();
  const drop = useDroppable({ id: widget.id });
  const drag = useDraggable({ id: widget.id });
  const style = drag.transform ? { transform: `translate(${drag.transform.x}px, ${drag.transform.y}px)`, zIndex: 2 } : undefined;
  return (
    <div ref={drop.setNodeRef} className={`widget-slot${drop.isOver ? ' over' : ''}`}>
      <figure ref={drag.setNodeRef} style={style} className={`widget${drag.isDragging ? ' dragging' : ''}`} aria-labelledby={titleId}>
        <figcaption id={titleId} dir="auto">
          {title}
        </figcaption>
        <p className="widget-value">{formatValue(widget.value, widget.widget_config.format)}</p>
        {widget.error ? (
          <p className="small alert" dir="auto">
            {widget.error.message}
          </p>
        ) : (
          <p className="small muted">{widget.widget_config.date_range ?? 'This Month'}</p>
        )}
        <div className="widget-actions">
          <button type="button" className="handle" ref={drag.setActivatorNodeRef} {...drag.listeners} aria-label={`Drag ${title}`} tabIndex={-1}>
            ⠿
          </button>
          <button type="button" onClick={() => onMove(-1)} disabled={first} aria-label={`Move ${title} earlier`}>
            ←
          </button>
          <button type="button" onClick={() => onMove(1)} disabled={last} aria-label={`Move ${title} later`}>
            →
          </button>
          <button type="button" onClick={onEdit} aria-label={`Edit ${title}`}>
            Edit
          </button>
          <button type="button" onClick={onRemove} aria-label={`Remove ${title}`}>
            Remove
          </button>
        </div>
      </figure>
    </div>
  );
}
