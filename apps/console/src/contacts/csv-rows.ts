// The rows of a CSV file with the line each starts on, counted as the import counts them (blank
// lines and quoted line breaks included, the header on line 1), so the import's per-line errors
// can be shown against the rows they are about. Only the first `max` rows are kept.
export interface CsvRow {
  line: number;
  cells: string[];
}

export function csvRows(text: string, max = 500): { header: string[]; rows: CsvRow[]; total: number } {
  const records: CsvRow[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let total = 0;
  const body = text.startsWith('\ufeff') ? text.slice(1) : text;
  const finish = () => {
    cells.push(cell);
    const blank = cells.length === 1 && cells[0] === '';
    if (!blank) {
      total += 1;
      if (records.length <= max) records.push({ line: start, cells });
    }
    cells = [];
    cell = '';
  };
  for (let i = 0; i < body.length; i++) {
    const char = body[i];
    if (quoted) {
      if (char === '"' && body[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else {
        if (char === '\n') line++;
        cell += char;
      }
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      cells.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && body[i + 1] === '\n') i++;
      finish();
      line++;
      start = line;
    } else cell += char;
  }
  if (cell !== '' || cells.length > 0) finish();
  const [header, ...rows] = records;
  return { header: header?.cells ?? [], rows, total: Math.max(0, total - 1) };
}
