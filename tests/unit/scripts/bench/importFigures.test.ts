/** bench:import's figure for what a changed identity costs: the changed job's charges less the unchanged job's baseline. */
import { changedIdentityCost } from '../../../../scripts/bench/importFigures';

describe('changedIdentityCost', () => {
  it('subtracts the unchanged job per identity times the identities sent, over the identities changed', () => {
    // 0.133 RU/identity unchanged and 0.291 at 1 % changed, at 20,000: (5,820 - 2,660) / 200 = 15.8
    const cost = changedIdentityCost(
      { jobRu: 2660, identities: 20_000, updated: 0 },
      { jobRu: 5820, identities: 20_000, updated: 200 },
    );
    expect(cost?.perChanged).toBeCloseTo(15.8, 5);
    expect(cost?.how).toContain('0.133 RU per identity × 20000 identities = 2660 RU');
  });

  it('has no figure when a step is missing or nothing changed', () => {
    const step = { jobRu: 10, identities: 10, updated: 0 };
    expect(changedIdentityCost(undefined, step)).toBeUndefined();
    expect(changedIdentityCost(step, step)).toBeUndefined();
  });
});
