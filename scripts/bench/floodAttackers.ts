/*
 * The attackers of bench:flood, in a process of their own so that the service's memory and event loop
 * measure only the service: each attacker POSTs large GraphQL bodies, one after the other, until time is up.
 */
import { invalidJsonBody, largeGraphQLBody, postStreamed } from './streamedPost';

export interface AttackPlan {
  url: string;
  seconds: number;
  attackers: number;
  documentBytes: number;
  attacks: Array<{ name: string; expected: string; headers: Record<string, string>; body: 'document' | 'invalidJson' }>;
}

export interface AttackOutcome {
  /** Count per "attack → HTTP status code". */
  answers: Record<string, number>;
  /** Body bytes each attack's requests got into their sockets before they read the answer. */
  sent: number[][];
  /** Answers other than the expected refusal. */
  unexpected: string[];
}

async function attack(plan: AttackPlan): Promise<AttackOutcome> {
  const outcome: AttackOutcome = { answers: {}, sent: plan.attacks.map(() => []), unexpected: [] };
  const shared = new Map<string, Buffer>();
  const until = Date.now() + plan.seconds * 1000;
  let salt = 0;
  const attacker = async (a: number): Promise<void> => {
    const k = a % plan.attacks.length;
    const kind = plan.attacks[k]!;
    const body = kind.body === 'document' ? largeGraphQLBody : invalidJsonBody;
    while (Date.now() < until) {
      const answer = await postStreamed(
        plan.url,
        kind.headers,
        plan.documentBytes,
        body(plan.documentBytes, salt++, shared),
      ).catch(() => undefined);
      if (!answer) {
        const key = `${kind.name} → connection closed before an answer`;
        outcome.answers[key] = (outcome.answers[key] ?? 0) + 1;
        outcome.unexpected.push(key);
        continue;
      }
      const code =
        (JSON.parse(answer.text) as { errors?: Array<{ extensions?: { code?: string } }> }).errors?.[0]?.extensions
          ?.code ?? 'none';
      const key = `${kind.name} → HTTP ${answer.status} ${code}`;
      outcome.answers[key] = (outcome.answers[key] ?? 0) + 1;
      outcome.sent[k]!.push(answer.bytesSent);
      if (code !== kind.expected) outcome.unexpected.push(key);
    }
  };
  await Promise.all(Array.from({ length: plan.attackers }, (_, a) => attacker(a)));
  return outcome;
}

process.once('message', (plan: AttackPlan) => {
  attack(plan).then(
    (outcome) => process.send?.(outcome, () => process.exit(0)),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
});
