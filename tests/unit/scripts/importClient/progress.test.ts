import { countLine, plainMeter, renderBar, ttyMeter } from '../../../../scripts/importClient/progress';

describe('progress of an upload and its run', () => {
  it('writes plain lines at each tenth of the way and at the end (a log, not a terminal)', () => {
    const lines: string[] = [];
    const meter = plainMeter((l) => lines.push(l));
    meter.update('uploaded', 0, 3_000);
    for (let done = 500; done <= 3_000; done += 500) meter.update('uploaded', done, 3_000);
    meter.update('uploaded', 3_000, 3_000);
    meter.update('applied', 3_000, 3_000);
    expect(lines).toEqual([
      'uploaded 500 of 3000 identities (16%)',
      'uploaded 1000 of 3000 identities (33%)',
      'uploaded 1500 of 3000 identities (50%)',
      'uploaded 2000 of 3000 identities (66%)',
      'uploaded 2500 of 3000 identities (83%)',
      'uploaded 3000 of 3000 identities (100%)',
      'applied 3000 of 3000 identities (100%)',
    ]);
  });

  it('draws a bar in place on a terminal, at most every 100 ms, and clears it for a line of its own', () => {
    const written: string[] = [];
    let now = 0;
    const meter = ttyMeter({ write: (t: string) => written.push(t), columns: 100 }, () => now);
    meter.update('uploaded', 100, 1_000);
    now = 50;
    meter.update('uploaded', 200, 1_000);
    now = 150;
    meter.update('uploaded', 300, 1_000);
    meter.line('the service is busy; sending part 4 again in 1 s');
    meter.update('uploaded', 1_000, 1_000);
    meter.end();
    expect(written).toEqual([
      renderBar('uploaded', 100, 1_000, 100),
      '\r\x1b[2K',
      renderBar('uploaded', 300, 1_000, 100),
      '\r\x1b[2K',
      'the service is busy; sending part 4 again in 1 s\n',
      renderBar('uploaded', 1_000, 1_000, 100),
      '\n',
    ]);
    expect(renderBar('uploaded', 300, 1_000, 100)).toBe(
      `[${'#'.repeat(12)}${'-'.repeat(28)}] ${countLine('uploaded', 300, 1_000)}`,
    );
  });
});
