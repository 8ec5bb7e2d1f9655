/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4) for tests: it throws on any
 * line that is not a HELP/TYPE comment or a well-formed sample of a declared family, and returns the
 * samples so tests can look values up.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** The value of the one sample with this name whose labels include `labels`. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parsePrometheusText(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  text.split('\n').forEach((line, index) => {
    const where = `line ${index + 1} ${JSON.stringify(line)}`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const comment = new RegExp(`^# (HELP|TYPE) (${NAME}) ?(.*)$`).exec(line);
      if (!comment) throw new Error(`${where}: bad comment`);
      if (comment[1] === 'TYPE') {
        if (!TYPES.has(comment[3] as string)) throw new Error(`${where}: unknown type`);
        types.set(comment[2] as string, comment[3] as string);
      }
      return;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`${where}: not a sample`);
    const name = match[1] as string;
    const family = [name, name.replace(/_(bucket|sum|count)$/, '')].find((n) => types.has(n));
    if (family === undefined) throw new Error(`${where}: sample of an undeclared family`);
    const labels: Record<string, string> = {};
    const labelText = match[2] ?? '';
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < labelText.length) {
      const label = LABEL.exec(labelText);
      if (!label) throw new Error(`${where}: bad labels`);
      labels[label[1] as string] = (label[2] as string).replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    }
    const value = parseValue(match[3] as string);
    if (value === undefined) throw new Error(`${where}: bad value`);
    samples.push({ name, labels, value });
  });
  return {
    types,
    samples,
    value(name, wanted = {}) {
      const found = samples.filter(
        (s) => s.name === name && Object.entries(wanted).every(([k, v]) => s.labels[k] === v),
      );
      if (found.length > 1) throw new Error(`${found.length} samples match ${name}`);
      return found[0]?.value;
    },
  };
}

/** Values are Go floats: `ParseFloat` reads NaN and Inf case-insensitively (prom-client writes `Nan`). */
function parseValue(raw: string): number | undefined {
  const lower = raw.toLowerCase();
  if (lower === 'nan') return NaN;
  if (lower === '+inf' || lower === 'inf') return Infinity;
  if (lower === '-inf') return -Infinity;
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw) ? Number(raw) : undefined;
}
