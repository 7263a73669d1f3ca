// A plain text table: each column as wide as its widest cell, numbers to the right.

/** `columns`: [{ title, right }]; `rows`: arrays of cells (strings or numbers). */
export function printTable(columns, rows) {
  const text = rows.map((row) => row.map((cell) => String(cell ?? '-')));
  const widths = columns.map((column, index) =>
    Math.max(column.title.length, ...text.map((row) => row[index].length)),
  );
  const line = (cells) =>
    cells
      .map((cell, index) =>
        columns[index].right ? cell.padStart(widths[index]) : cell.padEnd(widths[index]),
      )
      .join('  ')
      .trimEnd();
  console.log(line(columns.map((column) => column.title)));
  for (const row of text) console.log(line(row));
}
