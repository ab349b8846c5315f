import { parseError } from '../errors';

// A tiny hand-rolled scanner: errors name the parameter and the 1-based column, as PostgREST's do.
export class Cursor {
  pos = 0;

  constructor(
    readonly input: string,
    private readonly what: string,
  ) {}

  get done(): boolean {
    return this.pos >= this.input.length;
  }

  peek(offset = 0): string {
    return this.input.charAt(this.pos + offset);
  }

  startsWith(text: string): boolean {
    return this.input.startsWith(text, this.pos);
  }

  eat(text: string): boolean {
    if (!this.startsWith(text)) return false;
    this.pos += text.length;
    return true;
  }

  expect(text: string): void {
    if (!this.eat(text)) this.fail(`"${text}"`);
  }

  skipSpaces(): void {
    while (this.peek() === ' ') this.pos++;
  }

  readWhile(accept: (char: string, cursor: Cursor) => boolean): string {
    const start = this.pos;
    while (!this.done && accept(this.peek(), this)) this.pos++;
    return this.input.slice(start, this.pos);
  }

  rest(): string {
    const text = this.input.slice(this.pos);
    this.pos = this.input.length;
    return text;
  }

  // A double-quoted token; `\"` and `\\` are escapes.
  readQuoted(): string {
    this.expect('"');
    let text = '';
    while (!this.done && this.peek() !== '"') {
      if (this.peek() === '\\' && (this.peek(1) === '"' || this.peek(1) === '\\')) this.pos++;
      text += this.peek();
      this.pos++;
    }
    this.expect('"');
    return text;
  }

  fail(expected?: string): never {
    throw parseError(this.what, this.input, this.pos + 1, expected);
  }
}
