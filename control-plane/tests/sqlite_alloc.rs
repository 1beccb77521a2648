//! SQLite allocates with mimalloc once the control plane opens its first SQLite database (a
//! process of its own: no other test may start SQLite first).

#![allow(clippy::unwrap_used)]

use control_plane::store::Db;
use control_plane::store::sqlite_alloc::{self, Installed};
use libsqlite3_sys as ffi;

#[tokio::test]
async fn sqlite_blocks_come_from_mimalloc_after_the_first_database_opens() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::connect(None, dir.path(), 2).await.unwrap();
    db.migrate().await.unwrap();
    assert_eq!(sqlite_alloc::install(), Installed::Mimalloc);
    // SAFETY: SQLite's public allocation API, on blocks this test owns.
    unsafe {
        let p = ffi::sqlite3_malloc(100);
        assert!(!p.is_null());
        assert!(libmimalloc_sys::mi_is_in_heap_region(p));
        assert!(ffi::sqlite3_msize(p) >= 100);
        let q = ffi::sqlite3_realloc(p, 50_000);
        assert!(!q.is_null());
        assert!(libmimalloc_sys::mi_is_in_heap_region(q));
        assert!(ffi::sqlite3_msize(q) >= 50_000);
        ffi::sqlite3_free(q);
        assert!(ffi::sqlite3_malloc(-1).is_null());
    }
    // The database works on the new allocator: a write and a read through both pools.
    sqlx::query("INSERT INTO options (key, value) VALUES ('allocator-check', 'mimalloc')")
        .execute(&db.pool)
        .await
        .unwrap();
    let (value,): (String,) =
        sqlx::query_as("SELECT value FROM options WHERE key = 'allocator-check'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(value, "mimalloc");
}
