/** A recording (capture file or its metadata) the unit cannot replay; the message is one line for the user. */
export class RecordingError extends Error {}
