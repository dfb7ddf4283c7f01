import type { ComponentChildren } from 'preact';
import { navigate } from './router.ts';

/** A real link (it opens in a new tab, and can be copied), followed in place when clicked plainly. */
export function Link({ href, children, class: className }: { href: string; children: ComponentChildren; class?: string }) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} class={className}>
      {children}
    </a>
  );
}
