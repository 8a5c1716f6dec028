import { MemoryBackend } from '../../runtime/storage/memory.js';
import { RocksDbBackend } from '../../runtime/storage/rocksdb.js';
import { runBackendContract } from './contract.js';

runBackendContract('memory', () => new MemoryBackend());
runBackendContract('rocksdb', (dir) => new RocksDbBackend(dir));
