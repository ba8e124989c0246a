/** The client stopped at its user's request (Ctrl+C); what the service holds stays, and a new run goes on from there. */
export class Interrupted extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Interrupted';
  }
}
