// The embedded store's own SQLite connection, for tests that read its settings.
import type Database from 'better-sqlite3';
import type { Store } from '../../src/store/store.js';

export function storeConnection(store: Store): Database.Database {
  return (store as unknown as { db: Database.Database }).db;
}
