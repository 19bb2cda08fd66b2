/** Bit 7: at least one alert is active. The emitter worker sets it itself while a socket of its own has an alert up. */
export const ALERT_FLAG_ACTIVE = 0x80;
const OVERFLOW_BIT = 0x40;
const CURSOR_BITS = 0x3f;

/**
 * The `alert_flags` byte of lidar packet headers (docs/udp-packets.md): bit 7 = at least one alert is
 * active, bit 6 = the log has overflowed (entries were pushed out of the 32-entry log),
 * bits 0-5 = the low 6 bits of next_cursor. A client that sees the byte change knows to poll
 * GET /api/v1/sensor/alerts.
 */
export function alertFlags(state: { nextCursor: number; overflowed: boolean; activeCount: number }): number {
  return (
    (state.activeCount > 0 ? ALERT_FLAG_ACTIVE : 0) |
    (state.overflowed ? OVERFLOW_BIT : 0) |
    (state.nextCursor & CURSOR_BITS)
  );
}
