/**
 * The HTTP listener of a unit bound to a specific address moves with that address (src/core/bound-address.ts):
 * it stops listening where the address was (gone from the machine, so the connections there are dead and
 * are dropped, not waited for) and listens on the new address, on the same port.
 */
import type { Server } from 'node:http';

export async function moveListener(server: Server, host: string, port: number): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
