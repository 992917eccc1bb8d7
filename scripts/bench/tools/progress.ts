/** A benchmark's progress line, on stderr: its report alone goes to stdout. */
export const log = (line: string): void => void process.stderr.write(line + '\n');
