import Module from 'node:module';
import path from 'node:path';

/**
 * Makes `require('@azure/functions-core')` resolve to our stand-in, as the real
 * Functions host does for its worker. Must run before `@azure/functions` loads.
 * (Under jest the same mapping is done with moduleNameMapper.)
 */
export function installFunctionsCore(): void {
  const moduleWithResolver = Module as unknown as {
    _resolveFilename: (request: string, ...rest: unknown[]) => string;
  };
  const original = moduleWithResolver._resolveFilename;
  // Beside this module: the build output, or the sources when they run as TypeScript (an instance of the fleet in tests).
  const target = path.join(__dirname, __filename.endsWith('.ts') ? 'functionsCore.ts' : 'functionsCore.js');
  if ((original as { __functionsCore?: boolean }).__functionsCore) return;
  const patched = function (this: unknown, request: string, ...rest: unknown[]): string {
    if (request === '@azure/functions-core') return target;
    return original.call(this, request, ...rest);
  };
  (patched as { __functionsCore?: boolean }).__functionsCore = true;
  moduleWithResolver._resolveFilename = patched;
}
