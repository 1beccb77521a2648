//! SQLite's own memory allocator: the bundled SQLite asks the C library's `malloc` for every
//! bound text it copies, every record it builds and every page it caches. Under usage ingest,
//! glibc's `malloc` and `free` took about 7 % of the control plane's CPU, mimalloc serves the
//! same requests in about 2 % (`benches/results/2026-12-01-sqlite-ingest.md`). [`install`]
//! hands them to mimalloc, the binary's global allocator, before SQLite starts.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use libsqlite3_sys as ffi;

/// What [`install`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installed {
    /// SQLite allocates with mimalloc.
    Mimalloc,
    /// SQLite had already started (a connection was opened first), so it keeps the C library's
    /// allocator: SQLite can change allocators only before it starts, which keeps every block
    /// it frees in the allocator that gave it.
    TooLate,
}

static OUTCOME: OnceLock<Installed> = OnceLock::new();

/// Makes SQLite allocate with mimalloc; call it before the first SQLite connection opens (the
/// first call decides, later ones answer the same).
pub fn install() -> Installed {
    *OUTCOME.get_or_init(|| {
        let methods = ffi::sqlite3_mem_methods {
            xMalloc: Some(sqlite_malloc),
            xFree: Some(sqlite_free),
            xRealloc: Some(sqlite_realloc),
            xSize: Some(sqlite_size),
            xRoundup: Some(sqlite_roundup),
            xInit: Some(sqlite_init),
            xShutdown: Some(sqlite_shutdown),
            pAppData: std::ptr::null_mut(),
        };
        // SAFETY: SQLite copies the methods before returning; it refuses (SQLITE_MISUSE) once
        // it has started, and this runs once, before this process opens a connection itself.
        let code = unsafe {
            ffi::sqlite3_config(
                ffi::SQLITE_CONFIG_MALLOC,
                &methods as *const ffi::sqlite3_mem_methods,
            )
        };
        if code == ffi::SQLITE_OK {
            Installed::Mimalloc
        } else {
            Installed::TooLate
        }
    })
}

/// SQLite asks for sizes as an `int`; a negative one is refused as `malloc` would refuse it.
fn size_of_request(n: c_int) -> Option<usize> {
    usize::try_from(n).ok()
}

unsafe extern "C" fn sqlite_malloc(n: c_int) -> *mut c_void {
    match size_of_request(n) {
        // SAFETY: mimalloc's `malloc`; its blocks are 16-byte aligned (SQLite needs 8).
        Some(n) => unsafe { libmimalloc_sys::mi_malloc(n) },
        None => std::ptr::null_mut(),
    }
}

unsafe extern "C" fn sqlite_free(p: *mut c_void) {
    // SAFETY: SQLite frees only blocks these methods gave it (or null, which mi_free ignores).
    unsafe { libmimalloc_sys::mi_free(p) }
}

unsafe extern "C" fn sqlite_realloc(p: *mut c_void, n: c_int) -> *mut c_void {
    match size_of_request(n) {
        // SAFETY: `p` is a block of these methods (SQLite never passes null here).
        Some(n) => unsafe { libmimalloc_sys::mi_realloc(p, n) },
        None => std::ptr::null_mut(),
    }
}

unsafe extern "C" fn sqlite_size(p: *mut c_void) -> c_int {
    // SAFETY: `p` is a live block of these methods.
    let size = unsafe { libmimalloc_sys::mi_usable_size(p) };
    c_int::try_from(size).unwrap_or(c_int::MAX)
}

/// Rounds a request up as mimalloc will (SQLite uses it to size lookaside and cache slots).
unsafe extern "C" fn sqlite_roundup(n: c_int) -> c_int {
    match size_of_request(n) {
        // SAFETY: a pure size computation.
        Some(n) => {
            c_int::try_from(unsafe { libmimalloc_sys::mi_good_size(n) }).unwrap_or(c_int::MAX)
        }
        None => n,
    }
}

unsafe extern "C" fn sqlite_init(_: *mut c_void) -> c_int {
    ffi::SQLITE_OK
}

unsafe extern "C" fn sqlite_shutdown(_: *mut c_void) {}
