/** One waiter, woken by the next notify() or after ms: how the test inboxes wait for what comes next. */
export class Wake {
  private wake: (() => void) | undefined;

  notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
