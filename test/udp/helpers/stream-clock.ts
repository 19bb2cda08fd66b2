/**
 * Proving that nothing arrives needs time to pass. An independent simulated unit streaming to its own
 * socket measures it in frames instead of a sleep: "while it delivered two frames, nothing else came".
 */
import { EmitterStreams } from '../../../src/hal/emitter-streams.js';
import { RecordingAlerts } from './recording-alerts.js';
import { UdpCapture } from './udp-capture.js';
import { planOf } from './plan-of.js';
import { waitFor } from '../../helpers/poll.js';

export class StreamClock {
  private readonly unit = new EmitterStreams(new RecordingAlerts());
  private runs = 0;

  /** Returns once two complete 10 Hz frames (≥ 200 ms of stream time) have arrived from the clock unit. */
  async twoFrames(): Promise<void> {
    const rx = await UdpCapture.listen();
    try {
      await this.unit.apply(
        planOf(
          { udp_port_lidar: rx.port, udp_port_imu: 0, lidar_mode: '512x10', udp_profile_lidar: 'RNG15_RFL8_NIR8' },
          { initId: ++this.runs },
        ),
      );
      // A partial first frame, then two whole ones of 32 packets.
      await waitFor(() => rx.count >= 3 * 32, 10_000, 'two frames of the clock unit');
      await this.unit.apply(null);
    } finally {
      await rx.close();
    }
  }

  close(): Promise<void> {
    return this.unit.close();
  }
}
