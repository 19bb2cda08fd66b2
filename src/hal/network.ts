/** Network interface facts and settings (filled in by the time-and-network work). */
export interface NetworkHal {
  close(): Promise<void>;
}
