import type { ComponentChildren } from 'preact';

/** What a view shows while it loads, when nothing matches, and when the API refused. */

export function Loading({ what }: { what: string }) {
  return (
    <p class="note" role="status">
      Loading {what}…
    </p>
  );
}

export function NotFound({ children }: { children: ComponentChildren }) {
  return (
    <div class="not-found" role="status">
      <h2>Not found</h2>
      <p>{children}</p>
    </div>
  );
}

export function Failed({ message }: { message: string }) {
  return (
    <div class="failed" role="alert">
      <h2>Could not load this</h2>
      <p>{message}</p>
    </div>
  );
}
