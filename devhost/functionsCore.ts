/**
 * Stand-in for the module `@azure/functions-core`, which the Azure Functions host
 * normally provides to the worker. When it can be required, `@azure/functions`
 * registers every `app.http` / `app.timer` call with it instead of switching to
 * "test mode"; the dev host reads the captured registrations from here.
 */

export interface BindingInfo {
  type?: string;
  direction?: string;
  route?: string;
  methods?: string[];
  schedule?: string;
  runOnStartup?: boolean;
  [key: string]: unknown;
}

export interface FunctionMetadata {
  name: string;
  bindings: Record<string, BindingInfo>;
}

export type FunctionCallback = (...args: unknown[]) => unknown;

export interface RegisteredFunction {
  metadata: FunctionMetadata;
  handler: FunctionCallback;
}

/** Kept for the life of the process: function modules register once, when first loaded. */
const registrations = new Map<string, RegisteredFunction>();

export function registerFunction(metadata: FunctionMetadata, handler: FunctionCallback): { dispose(): void } {
  registrations.set(metadata.name, { metadata, handler });
  return { dispose: () => void registrations.delete(metadata.name) };
}

export function setProgrammingModel(_model: unknown): void {
  // The dev host invokes handlers directly; the programming model object is not needed.
}

export function getProgrammingModel(): undefined {
  return undefined;
}

export function registerHook(_hookName: string, _callback: unknown): { dispose(): void } {
  return { dispose: () => undefined };
}

export function log(level: string, category: string, message: string): void {
  if (level === 'error' || level === 'warning') console.error(`[functions:${category}] ${message}`);
}

export function registeredFunctions(): RegisteredFunction[] {
  return [...registrations.values()];
}
