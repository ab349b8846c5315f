interface Waiting<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

export interface GroupedWritesOptions<I, O> {
  // Statements on their way at once.
  maxInFlight: number;
  // How much of a statement an item takes (e.g. its events), and the most one statement takes.
  weight: (item: I) => number;
  maxWeight: number;
  // One statement for a group: a result per item, in order.
  many: (items: I[]) => Promise<O[]>;
  // One statement for one item (a quiet writer's path, and each item's when its group is refused).
  one: (item: I) => Promise<O>;
}

// Group commit for the inbound receivers' writes. An item goes to the database at once while fewer
// than `maxInFlight` statements are on their way; otherwise it waits for the next one, together with
// the others that arrived meanwhile, in one statement. A quiet receiver pays one statement per
// request, a busy one one per group, which keeps the database's share of each acknowledgement
// small. Each item is answered only after the statement holding it committed; a group the database
// refuses is retried item by item, so one bad request does not fail the others.
export class GroupedWrites<I, O> {
  private waiting: Waiting<I, O>[] = [];
  private inFlight = 0;

  constructor(private readonly options: GroupedWritesOptions<I, O>) {}

  write(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    const { maxInFlight, weight, maxWeight } = this.options;
    while (this.inFlight < maxInFlight && this.waiting.length > 0) {
      const group: Waiting<I, O>[] = [];
      let size = 0;
      while (this.waiting.length > 0 && (group.length === 0 || size + weight(this.waiting[0].item) <= maxWeight)) {
        const next = this.waiting.shift()!;
        size += weight(next.item);
        group.push(next);
      }
      this.inFlight++;
      void this.run(group).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async run(group: Waiting<I, O>[]): Promise<void> {
    if (group.length > 1) {
      try {
        const results = await this.options.many(group.map((w) => w.item));
        group.forEach((w, i) => w.resolve(results[i]));
        return;
      } catch {
        // Each goes alone below.
      }
    }
    await Promise.all(group.map((w) => this.options.one(w.item).then(w.resolve, w.reject)));
  }
}
