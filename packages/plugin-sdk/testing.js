// A real ctx host in-process (RocksDB in a temp directory, the built-in plugins, yours), for tests.
export * from 'ctx/testing';
