/** What a UDP fault rule (src/model/fault-rules.ts) has done so far: the packets it saw and acted on. */
export interface UdpFaultCount {
  id: string;
  applied: number;
  seen: number;
}
