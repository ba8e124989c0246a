/**
 * Structured logger: one JSON object per line, always with a correlation id.
 * Keys that could carry personal or secret values are dropped, whatever the caller passes.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, string | number | boolean | null | undefined>;
export type LogSink = (level: LogLevel, line: string) => void;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const FORBIDDEN_KEY = /personalnumber|cpr|document|token|secret|password|authorization|assertion|upn|email|phone/i;

export const consoleSink: LogSink = (level, line) => {
  if (level === 'error' || level === 'warn') process.stderr.write(line + '\n');
  else process.stdout.write(line + '\n');
};

export function createLogger(sink: LogSink, base: LogFields = {}, minLevel: LogLevel = 'info'): Logger {
  const write = (level: LogLevel, message: string, fields?: LogFields): void => {
    if (ORDER[level] < ORDER[minLevel]) return;
    const record: Record<string, unknown> = { time: new Date().toISOString(), level, message };
    for (const [k, v] of Object.entries({ ...base, ...fields })) {
      if (v === undefined) continue;
      record[k] = FORBIDDEN_KEY.test(k) ? '[redacted]' : v;
    }
    sink(level, JSON.stringify(record));
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger(sink, { ...base, ...fields }, minLevel),
  };
}
