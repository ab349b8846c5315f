import {
  type Announcements,
  type CollisionDetection,
  DndContext,
  type DragEndEvent,
  DragOverlay,
  type DragStartEvent,
  KeyboardCode,
  type KeyboardCoordinateGetter,
  KeyboardSensor,
  PointerSensor,
  pointerWithin,
  rectIntersection,
  useDraggable,
  useDroppable,
  useSensor,
  useSensors,
} from '@dnd-kit/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type PointerEvent as ReactPointerEvent, useId, useState } from 'react';
import { messageOf } from '../api/errors';
import { rows } from '../api/rest';
import { supabase } from '../api/supabase';
import { Link } from '../router';
import { ErrorAlert } from '../ui/page';
import {
  type Board,
  boardKey,
  type Card,
  type Column,
  type Deal,
  memberName,
  money,
  moveDeal,
  probabilityAfterMove,
  useContactNames,
  useMembers,
} from './deals.api';

// The kanban board of one pipeline (issue 35, item 6): a column per stage (a region named by the
// stage, its count and total), cards as articles. A card is dragged by pressing anywhere on it but
// its link (dnd-kit's pointer sensor, past 8 px) or picked up with Space or Enter and carried with
// the arrow keys from column to column (dnd-kit's keyboard sensor; its live region announces each
// step). A drop moves the deal through POST /functions/v1/deals/:id/move: the card moves at once
// with the stage's default probability, the API's answer confirms it, and a refusal puts the card
// back and says why in an alert.

// Presses on a link or a button inside a card are theirs, not a drag.
class CardPointerSensor extends PointerSensor {
  static activators = [
    {
      eventName: 'onPointerDown' as const,
      handler: ({ nativeEvent: event }: ReactPointerEvent) =>
        event.isPrimary && event.button === 0 && !(event.target instanceof Element && event.target.closest('a, button, input, select, textarea')),
    },
  ];
}

// Left and right carry the card to the previous or next column; the drop target is the column
// under the card (rectangle intersection), so the card is put at the top of that column.
const columnByColumn: KeyboardCoordinateGetter = (event, { context }) => {
  const { active, collisionRect, droppableRects, droppableContainers, over } = context;
  if (!active || !collisionRect) return undefined;
  const columns = droppableContainers
    .getEnabled()
    .map((container) => ({ id: container.id, rect: droppableRects.get(container.id) }))
    .filter((column): column is { id: string; rect: NonNullable<typeof column.rect> } => !!column.rect)
    .sort((a, b) => a.rect.left - b.rect.left);
  const from = Math.max(
    0,
    columns.findIndex((column) => column.id === (over?.id ?? active.data.current?.stageId)),
  );
  let to = from;
  if (event.code === KeyboardCode.Right) to = Math.min(columns.length - 1, from + 1);
  else if (event.code === KeyboardCode.Left) to = Math.max(0, from - 1);
  else if (event.code !== KeyboardCode.Up && event.code !== KeyboardCode.Down) return undefined;
  event.preventDefault();
  const target = columns[to];
  if (!target) return undefined;
  return { x: target.rect.left + (target.rect.width - collisionRect.width) / 2, y: target.rect.top + 56 };
};

// The pointer's column when there is a pointer, else the column the card overlaps most.
const collisions: CollisionDetection = (args) => {
  const under = pointerWithin(args);
  return under.length > 0 ? under : rectIntersection(args);
};

export function DealBoard({ board }: { board: Board }) {
  const queryClient = useQueryClient();
  const members = useMembers();
  const contactIds = [...new Set(board.stages.flatMap((stage) => stage.deals.map((deal) => deal.contact_id).filter((id): id is string => !!id)))];
  const contacts = useContactNames(contactIds);
  const [dragging, setDragging] = useState<Card | null>(null);
  const [status, setStatus] = useState('');
  const [refusal, setRefusal] = useState('');
  const sensors = useSensors(
    useSensor(CardPointerSensor, { activationConstraint: { distance: 8 } }),
    useSensor(KeyboardSensor, { coordinateGetter: columnByColumn }),
  );

  const stageOf = (id: unknown) => board.stages.find((stage) => stage.id === id);
  const cardOf = (id: unknown) => board.stages.flatMap((stage) => stage.deals).find((deal) => deal.id === id);
  const key = boardKey(board.pipeline_id);

  const move = useMutation({
    mutationFn: ({ card, to }: { card: Card; from: Column; to: Column }) => moveDeal(card.id, to.key),
    onMutate: async ({ card, from, to }) => {
      setRefusal('');
      await queryClient.cancelQueries({ queryKey: key });
      const before = queryClient.getQueryData<Board>(key);
      queryClient.setQueryData<Board>(key, (current) => current && moved(current, card, from.id, to, probabilityAfterMove(to, card.probability)));
      setStatus(`Moving ${card.title} to ${to.name}…`);
      return { before };
    },
    onSuccess: (deal: Deal, { card, to }) => {
      queryClient.setQueryData<Board>(key, (current) => current && withCard(current, to.id, deal));
      setStatus(`${card.title} moved to ${to.name}: probability ${deal.probability} %.`);
    },
    onError: (error, { card, from, to }, context) => {
      if (context?.before) queryClient.setQueryData(key, context.before);
      setStatus('');
      setRefusal(`${card.title} could not be moved to ${to.name} and is back in ${from.name}: ${messageOf(error)}`);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['deals'] }),
  });

  // A column's cards past the board's first 100, from /rest/v1/deals in the board's order.
  const more = useMutation({
    mutationFn: (stage: Column) =>
      rows<Card>(
        supabase
          .from('deals')
          .select('id,title,value,currency,probability,owner_id,contact_id,priority,position')
          .eq('stage_id', stage.id)
          .order('position')
          .order('id')
          .range(stage.deals.length, stage.deals.length + 99),
      ),
    onSuccess: (cards, stage) =>
      queryClient.setQueryData<Board>(key, (current) =>
        current
          ? {
              ...current,
              stages: current.stages.map((column) => {
                if (column.id !== stage.id) return column;
                const deals = [...column.deals, ...cards.filter((card) => !column.deals.some((deal) => deal.id === card.id))];
                return { ...column, deals, has_more: deals.length < column.deal_count };
              }),
            }
          : current,
      ),
  });

  const onDragStart = ({ active }: DragStartEvent) => setDragging(cardOf(active.id) ?? null);
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    setDragging(null);
    const card = cardOf(active.id);
    const from = stageOf(active.data.current?.stageId);
    const to = stageOf(over?.id);
    if (!card || !from || !to || from.id === to.id) return;
    move.mutate({ card, from, to });
  };

  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up deal ${cardOf(active.id)?.title ?? ''} in ${stageOf(active.data.current?.stageId)?.name ?? ''}.`,
    onDragOver: ({ active, over }) =>
      over ? `Deal ${cardOf(active.id)?.title ?? ''} is over ${stageOf(over.id)?.name ?? ''}.` : `Deal ${cardOf(active.id)?.title ?? ''} is not over a column.`,
    onDragEnd: ({ active, over }) =>
      over
        ? `Dropped deal ${cardOf(active.id)?.title ?? ''} in ${stageOf(over.id)?.name ?? ''}.`
        : `Deal ${cardOf(active.id)?.title ?? ''} was dropped outside the board.`,
    onDragCancel: ({ active }) =>
      `Moving deal ${cardOf(active.id)?.title ?? ''} was cancelled; it stays in ${stageOf(active.data.current?.stageId)?.name ?? ''}.`,
  };
  const names = { members: members.data, contacts: contacts.data };
  const currency = boardCurrency(board);

  return (
    <>
      <p className="muted small" id="board-help">
        Drag a card to another column, or focus it, press Space, move it with the left and right arrow keys and press Space again (Escape cancels).
      </p>
      <div role="status" className="board-status small">
        {status}
      </div>
      {refusal ? (
        <div role="alert" className="alert">
          <span dir="auto">{refusal}</span>
        </div>
      ) : null}
      <ErrorAlert error={more.error} />
      <DndContext
        sensors={sensors}
        collisionDetection={collisions}
        onDragStart={onDragStart}
        onDragEnd={onDragEnd}
        onDragCancel={() => setDragging(null)}
        accessibility={{
          announcements,
          screenReaderInstructions: {
            draggable:
              'To move this deal to another stage, press Space or Enter, use the left and right arrow keys, then press Space or Enter to drop it, or Escape to cancel.',
          },
        }}
      >
        <div className="deal-board" style={{ gridTemplateColumns: `repeat(${board.stages.length}, minmax(10rem, 1fr))` }}>
          {board.stages.map((stage) => (
            <StageColumn
              key={stage.id}
              stage={stage}
              currency={currency}
              names={names}
              pending={move.isPending ? move.variables?.card.id : undefined}
              onMore={() => more.mutate(stage)}
              loadingMore={more.isPending && more.variables?.id === stage.id}
            />
          ))}
        </div>
        <DragOverlay dropAnimation={null}>{dragging ? <CardBody card={dragging} names={names} overlay /> : null}</DragOverlay>
      </DndContext>
    </>
  );
}

type Names = { members?: Map<string, { id: string; first_name: string | null; last_name: string | null; email: string }>; contacts?: Map<string, string> };

function StageColumn({
  stage,
  currency,
  names,
  pending,
  onMore,
  loadingMore,
}: {
  stage: Column;
  currency: string | undefined;
  names: Names;
  pending?: string;
  onMore: () => void;
  loadingMore: boolean;
}) {
  const { setNodeRef, isOver } = useDroppable({ id: stage.id });
  const headingId = useId();
  const summaryId = useId();
  return (
    <section ref={setNodeRef} className={`deal-column${isOver ? ' over' : ''}`} aria-labelledby={`${headingId} ${summaryId}`}>
      <header style={{ borderTopColor: stage.color ?? undefined }}>
        <h2 id={headingId} dir="auto">
          {stage.name}
        </h2>
        <p id={summaryId} className="small muted">
          {stage.deal_count} {stage.deal_count === 1 ? 'deal' : 'deals'}, {money(stage.total_value, currency)}
          {stage.default_probability !== null ? <span className="visually-hidden">, default probability {stage.default_probability} %</span> : null}
        </p>
      </header>
      <div className="deal-cards">
        {stage.deals.map((card) => (
          <DraggableCard key={card.id} card={card} stageId={stage.id} names={names} pending={pending === card.id} />
        ))}
        {stage.deals.length === 0 ? <p className="muted small empty">No deals</p> : null}
        {stage.has_more ? (
          <button type="button" className="small" onClick={onMore} disabled={loadingMore}>
            Show more ({stage.deal_count - stage.deals.length} not shown)
          </button>
        ) : null}
      </div>
    </section>
  );
}

function DraggableCard({ card, stageId, names, pending }: { card: Card; stageId: string; names: Names; pending: boolean }) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, isDragging } = useDraggable({
    id: card.id,
    data: { stageId },
    attributes: { role: 'article', roleDescription: 'draggable deal' },
  });
  const titleId = useId();
  return (
    <article
      ref={(node) => {
        setNodeRef(node);
        setActivatorNodeRef(node);
      }}
      {...attributes}
      {...listeners}
      aria-labelledby={titleId}
      aria-busy={pending || undefined}
      className={`deal-card${isDragging ? ' dragging' : ''}`}
    >
      <CardBody card={card} names={names} titleId={titleId} />
    </article>
  );
}

function CardBody({ card, names, titleId, overlay = false }: { card: Card; names: Names; titleId?: string; overlay?: boolean }) {
  const contact = card.contact_id ? (names.contacts?.get(card.contact_id) ?? '…') : 'No contact';
  const body = (
    <>
      <h3 id={titleId} dir="auto">
        {card.title}
      </h3>
      <p className="deal-value">
        {money(card.value, card.currency)}{' '}
        <span className="muted small" title="Probability">
          {card.probability} %<span className="visually-hidden"> probability</span>
        </span>
      </p>
      <p className="small" dir="auto">
        <span className="visually-hidden">Contact: </span>
        {contact}
      </p>
      <p className="small muted" dir="auto">
        <span className="visually-hidden">Owner: </span>
        {memberName(names.members, card.owner_id)}
      </p>
      {overlay ? null : (
        <Link to={`/deals?deal=${card.id}`} className="small deal-open" aria-label={`Details of ${card.title}`}>
          Details
        </Link>
      )}
    </>
  );
  return overlay ? (
    <div className="deal-card overlay" aria-hidden="true">
      {body}
    </div>
  ) : (
    body
  );
}

// The board after a card left one column for the end of another (where the API puts it).
function moved(board: Board, card: Card, fromId: string, to: Column, probability: number): Board {
  return {
    ...board,
    stages: board.stages.map((stage) => {
      if (stage.id === fromId)
        return {
          ...stage,
          deal_count: stage.deal_count - 1,
          total_value: Number(stage.total_value) - Number(card.value),
          deals: stage.deals.filter((deal) => deal.id !== card.id),
        };
      if (stage.id === to.id)
        return {
          ...stage,
          deal_count: stage.deal_count + 1,
          total_value: Number(stage.total_value) + Number(card.value),
          deals: [...stage.deals, { ...card, probability }],
        };
      return stage;
    }),
  };
}

function withCard(board: Board, stageId: string, deal: Deal): Board {
  return {
    ...board,
    stages: board.stages.map((stage) =>
      stage.id !== stageId
        ? stage
        : { ...stage, deals: stage.deals.map((card) => (card.id === deal.id ? { ...card, probability: deal.probability, position: deal.position } : card)) },
    ),
  };
}

// Column totals are sums of values: shown in the currency when every card shares one.
function boardCurrency(board: Board): string | undefined {
  const currencies = new Set(board.stages.flatMap((stage) => stage.deals.map((deal) => deal.currency)));
  return currencies.size === 1 ? [...currencies][0] : currencies.size === 0 ? 'USD' : undefined;
}
