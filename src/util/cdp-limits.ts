/** Largest CDP message either side may send (a full-page screenshot of a tall page is tens of megabytes). */
export const MAX_CDP_MESSAGE = 256 * 1024 * 1024;
