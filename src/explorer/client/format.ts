/** How values read on the page: times in UTC as the API gives them, amounts as exact base-unit strings. */

export function time(iso: string | null | undefined): string {
  return iso ? iso.replace('T', ' ').replace('Z', ' UTC') : '—';
}

export function usd(value: number): string {
  return value.toLocaleString('en-US', { style: 'currency', currency: 'USD' });
}

export function whole(value: number): string {
  return value.toLocaleString('en-US');
}

/** The badge colour of a status: in progress, completed or cancelled (the badge shows the API's spelling). */
export function statusClass(status: string): string {
  if (status === 'COMPLETED' || status === 'DESTINATION_CLAIMED') return 'status status-done';
  if (status === 'CANCELLED' || status === 'EXPIRED') return 'status status-cancelled';
  return 'status status-progress';
}
