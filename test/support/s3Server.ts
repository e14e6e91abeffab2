/** The backend starters live in bench/cluster/ (the benchmarks start the same servers); tests import them from here. */
export * from '../../bench/cluster/s3Server.js';
