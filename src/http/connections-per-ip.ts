/**
 * Open WebSockets, or open SSE streams, counted per client IP against a cap (`WS_MAX_CONNECTIONS_PER_IP`,
 * each kind on its own): each holds a socket and its buffers for as long as the client likes, so one
 * address may not hold them all. The IP is the one the rate limiter uses (src/http/rate-limit.ts clientIp).
 */
export class ConnectionsPerIp {
  private readonly open = new Map<string, number>();

  constructor(
    readonly limit: number,
    private readonly what = 'open WebSocket connections',
  ) {}

  count(ip: string): number {
    return this.open.get(ip) ?? 0;
  }

  /** Takes a slot for this IP, or says false when it holds the limit already. */
  take(ip: string): boolean {
    const count = this.count(ip);
    if (count >= this.limit) return false;
    this.open.set(ip, count + 1);
    return true;
  }

  release(ip: string): void {
    const count = this.count(ip) - 1;
    // Addresses with nothing open are forgotten, so the map holds only live ones.
    if (count > 0) this.open.set(ip, count);
    else this.open.delete(ip);
  }

  refusal(): string {
    return `an IP address may hold at most ${this.limit} ${this.what}; close one first`;
  }
}
