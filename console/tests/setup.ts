// jsdom lacks the layout observers Fluent UI uses to reflow a message bar.
class NoResizeObserver {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
globalThis.ResizeObserver ??= NoResizeObserver as unknown as typeof ResizeObserver;

// jsdom lays out no SVG text: the chart library measures its axis labels.
const svg = globalThis.SVGElement?.prototype as
  (SVGElement & { getComputedTextLength?: () => number; getBBox?: () => DOMRect }) | undefined;
if (svg) {
  svg.getComputedTextLength ??= () => 0;
  svg.getBBox ??= () => ({ x: 0, y: 0, width: 0, height: 0 }) as DOMRect;
}
// Nor has it a canvas (the chart library measures text with one when it can).
if (globalThis.HTMLCanvasElement)
  HTMLCanvasElement.prototype.getContext = (() => null) as unknown as HTMLCanvasElement['getContext'];
