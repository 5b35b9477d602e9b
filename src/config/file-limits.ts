// How much of a file the bridge reads where a configuration or a key is expected: wherever it is
// read (at start-up, on a reload, by the file watch, after a 401), a path naming something else (a
// log file, a disk image, /dev/zero) fails the same way, with a line, not with the memory or the
// event loop of the process.

/** Far beyond any configuration (ten thousand sessions listed take about 400 KiB). */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
/** Far beyond any API key. */
export const MAX_KEY_FILE_BYTES = 64 * 1024;
