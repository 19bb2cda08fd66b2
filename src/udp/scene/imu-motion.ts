/**
 * What the IMU of a unit standing still measures: gravity on z with a slight mounting tilt, the
 * spinning rotor's vibration as small noise, and a constant gyro bias. Deterministic (seeded), so two
 * runs of the simulator produce the same series.
 */
export class ImuAtRest {
  private state: number;
  private readonly accel: [number, number, number] = [0, 0, 0];
  private readonly gyro: [number, number, number] = [0, 0, 0];

  constructor(seed = 0x2545f491) {
    this.state = seed >>> 0 || 1;
  }

  /** xorshift32 in [0, 1). */
  private uniform(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 4294967296;
  }

  /** Roughly normal, sd 1. */
  private gauss(): number {
    return (this.uniform() + this.uniform() + this.uniform() - 1.5) * 2;
  }

  /** Next reading; the returned arrays are reused by the following call. */
  next(): { accelG: [number, number, number]; gyroDps: [number, number, number] } {
    // Tilt of about 0.4° (x) and 0.2° (y); vibration ~2 mg; gyro bias ~0.1 deg/s, noise ~0.03 deg/s.
    this.accel[0] = 0.007 + 0.002 * this.gauss();
    this.accel[1] = -0.0035 + 0.002 * this.gauss();
    this.accel[2] = 0.99997 + 0.002 * this.gauss();
    this.gyro[0] = 0.11 + 0.03 * this.gauss();
    this.gyro[1] = -0.07 + 0.03 * this.gauss();
    this.gyro[2] = 0.04 + 0.03 * this.gauss();
    return { accelG: this.accel, gyroDps: this.gyro };
  }
}
