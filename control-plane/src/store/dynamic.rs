//! Queries whose filters vary: static SQL fragments joined with numbered `$N` placeholders, which
//! both PostgreSQL and SQLite accept (sqlx's `QueryBuilder` writes `?` for the `Any` driver,
//! which PostgreSQL rejects); batch statements on SQLite use `?` instead ([`DynQuery::batch`]).
//! Only `&'static str` fragments are accepted, so values can only enter as bound parameters.

use std::sync::Arc;

use sqlx::any::AnyArguments;
use sqlx::postgres::PgArguments;
use sqlx::query::{Query, QueryAs};
use sqlx::sqlite::SqliteArguments;
use sqlx::{Any, Arguments, AssertSqlSafe, FromRow, Postgres, Sqlite};

/// A parameter value.
#[derive(Debug, Clone)]
enum Bind {
    Text(String),
    /// Text several values share (the same name in every row of a batch): SQLite's native
    /// driver binds it without a copy of its own.
    Shared(Arc<str>),
    Int(i64),
    /// Text or NULL.
    OptText(Option<String>),
}

/// SQL built from static fragments and bound values.
#[derive(Debug, Clone)]
pub struct DynQuery {
    sql: String,
    binds: Vec<Bind>,
    /// Placeholders are `?` (in order) instead of `$N`: see [`DynQuery::batch`].
    anonymous: bool,
}

impl DynQuery {
    pub fn new(sql: &'static str) -> Self {
        DynQuery {
            sql: sql.to_string(),
            binds: Vec::new(),
            anonymous: false,
        }
    }

    /// A statement with many parameters (a batch of rows). On SQLite its placeholders are
    /// anonymous `?`: SQLite finds a numbered parameter's name by a linear search, when it
    /// prepares the statement and again for every value bound (sqlx asks each one's name),
    /// so n numbered parameters cost O(n²); thousands of them cost milliseconds per batch.
    pub fn batch(kind: super::DbKind, sql: &'static str) -> Self {
        DynQuery {
            anonymous: kind == super::DbKind::Sqlite,
            ..DynQuery::new(sql)
        }
    }

    /// Makes room for `sql` more bytes of text and `binds` more values, so that a batch
    /// statement is built without growing its buffers again and again.
    pub fn reserve(&mut self, sql: usize, binds: usize) -> &mut Self {
        self.sql.reserve(sql);
        self.binds.reserve(binds);
        self
    }

    /// Appends a fixed fragment.
    pub fn push(&mut self, fragment: &'static str) -> &mut Self {
        self.sql.push_str(fragment);
        self
    }

    /// Appends a placeholder bound to a text value.
    pub fn bind_text(&mut self, value: impl Into<String>) -> &mut Self {
        self.binds.push(Bind::Text(value.into()));
        self.push_placeholder()
    }

    /// Appends a placeholder bound to a shared text value (see [`SharedText`]).
    pub fn bind_shared(&mut self, value: Arc<str>) -> &mut Self {
        self.binds.push(Bind::Shared(value));
        self.push_placeholder()
    }

    /// Binds `value` to the next of the `$N` placeholders the fixed SQL already holds (a
    /// statement that names a parameter more than once).
    pub fn value_text(&mut self, value: impl Into<String>) -> &mut Self {
        self.binds.push(Bind::Text(value.into()));
        self
    }

    /// Binds `value` to the next of the `$N` placeholders the fixed SQL already holds.
    pub fn value_int(&mut self, value: i64) -> &mut Self {
        self.binds.push(Bind::Int(value));
        self
    }

    /// Appends a placeholder bound to an integer.
    pub fn bind_int(&mut self, value: i64) -> &mut Self {
        self.binds.push(Bind::Int(value));
        self.push_placeholder()
    }

    /// Appends a placeholder bound to a text value or NULL.
    pub fn bind_opt_text(&mut self, value: Option<String>) -> &mut Self {
        self.binds.push(Bind::OptText(value));
        self.push_placeholder()
    }

    fn push_placeholder(&mut self) -> &mut Self {
        if self.anonymous {
            self.sql.push('?');
        } else {
            self.sql.push('$');
            self.sql.push_str(&self.binds.len().to_string());
        }
        self
    }

    /// The query, ready to execute.
    pub fn build(&self) -> Query<'_, Any, AnyArguments> {
        let mut query = sqlx::query(AssertSqlSafe(self.sql.clone()));
        for bind in &self.binds {
            query = match bind {
                Bind::Text(v) => query.bind(v.clone()),
                Bind::Shared(v) => query.bind(v.to_string()),
                Bind::Int(v) => query.bind(*v),
                Bind::OptText(v) => query.bind(v.clone()),
            };
        }
        query
    }

    /// The query for SQLite's native driver, taking the values: text is handed over without a
    /// copy (the `Any` driver copies every text value twice more before SQLite copies it).
    pub fn into_sqlite_query(self) -> Result<Query<'static, Sqlite, SqliteArguments>, sqlx::Error> {
        let args = native_arguments::<Sqlite>(self.binds)?;
        Ok(sqlx::query_with(AssertSqlSafe(self.sql), args))
    }

    /// The query for PostgreSQL's own driver, taking the values.
    pub fn into_postgres_query(self) -> Result<Query<'static, Postgres, PgArguments>, sqlx::Error> {
        let args = native_arguments::<Postgres>(self.binds)?;
        Ok(sqlx::query_with(AssertSqlSafe(self.sql), args))
    }

    /// The query mapped to rows of `T`, taking the values instead of copying them.
    pub fn into_query_as<T>(self) -> Result<QueryAs<'static, Any, T, AnyArguments>, sqlx::Error>
    where
        T: for<'r> FromRow<'r, sqlx::any::AnyRow>,
    {
        let args = arguments(self.binds)?;
        Ok(sqlx::query_as_with(AssertSqlSafe(self.sql), args))
    }

    /// The query, ready to execute, taking the values instead of copying them.
    pub fn into_query(self) -> Result<Query<'static, Any, AnyArguments>, sqlx::Error> {
        let args = arguments(self.binds)?;
        Ok(sqlx::query_with(AssertSqlSafe(self.sql), args))
    }

    /// The query mapped to rows of `T`.
    pub fn build_as<T>(&self) -> QueryAs<'_, Any, T, AnyArguments>
    where
        T: for<'r> FromRow<'r, sqlx::any::AnyRow>,
    {
        let mut query = sqlx::query_as::<_, T>(AssertSqlSafe(self.sql.clone()));
        for bind in &self.binds {
            query = match bind {
                Bind::Text(v) => query.bind(v.clone()),
                Bind::Shared(v) => query.bind(v.to_string()),
                Bind::Int(v) => query.bind(*v),
                Bind::OptText(v) => query.bind(v.clone()),
            };
        }
        query
    }

    /// How many values are bound so far.
    pub fn bound(&self) -> usize {
        self.binds.len()
    }

    #[cfg(test)]
    fn sql(&self) -> &str {
        &self.sql
    }
}

/// Appends `column IN (ids)` with the ids bound as one value, so the statement's text is the
/// same for any number of ids (prepared once, then cached) and costs about rows plus ids:
/// on PostgreSQL an array, joined; on SQLite a JSON array read by `json_each`, each id then a
/// primary-key lookup. One numbered parameter per id cost SQLite O(ids²): it finds a `$N`
/// parameter's name by a linear search, when it prepares the statement and again for every
/// value sqlx binds. The config feed and the quota reminders each read every user a usage
/// batch charged; over 1 000 users that was about 2 µs of the control plane's CPU per relayed
/// request (`benches/results/2026-12-06-ids-as-one-value.md`). The ingest's check of a batch's
/// users and tokens reads them the same way. On PostgreSQL the join matters: `id = ANY($1)`
/// can cost rows × ids, because the generic plan of a prepared statement may compare each row
/// with every id in turn (up to 39 ms a batch for 1 000 users and 1 000 ids in the ingest
/// bench).
pub fn push_ids(q: &mut DynQuery, kind: super::DbKind, column: &'static str, ids: &[i64]) {
    q.push(column);
    if kind == super::DbKind::Postgres {
        q.push(" IN (SELECT unnest(CAST(")
            .bind_text(bigint_array(ids.iter().copied()))
            .push(" AS BIGINT[])))");
        return;
    }
    q.push(" IN (SELECT value FROM json_each(")
        .bind_text(json_int_array(ids.iter().copied()))
        .push("))");
}

/// A PostgreSQL array literal of `values` (`{1,2,3}`), bound as text and cast to `BIGINT[]`:
/// the server reads a batch's columns as arrays about twice as fast as the same rows as JSON.
pub fn bigint_array(values: impl Iterator<Item = i64>) -> String {
    integer_list(values, '{', '}')
}

/// A JSON array of `values` (`[1,2,3]`), bound as text and read by SQLite's `json_each`.
pub fn json_int_array(values: impl Iterator<Item = i64>) -> String {
    integer_list(values, '[', ']')
}

/// `values` in decimal, comma-separated, between `open` and `close`.
fn integer_list(values: impl Iterator<Item = i64>, open: char, close: char) -> String {
    use std::fmt::Write as _;
    let mut out = String::from(open);
    for (i, v) in values.enumerate() {
        if i > 0 {
            out.push(',');
        }
        // Writing into a String cannot fail.
        let _ = write!(out, "{v}");
    }
    out.push(close);
    out
}

/// The bound values as a native driver's arguments, moved rather than copied (shared text is
/// handed over as it is).
fn native_arguments<DB>(binds: Vec<Bind>) -> Result<DB::Arguments, sqlx::Error>
where
    DB: sqlx::Database,
    for<'q> String: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'q> Arc<str>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'q> i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    for<'q> Option<String>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    let mut args = DB::Arguments::default();
    args.reserve(binds.len(), 0);
    for bind in binds {
        match bind {
            Bind::Text(v) => args.add(v),
            Bind::Shared(v) => args.add(v),
            Bind::Int(v) => args.add(v),
            Bind::OptText(v) => args.add(v),
        }
        .map_err(sqlx::Error::Encode)?;
    }
    Ok(args)
}

/// The bound values as the driver's arguments, moved rather than copied.
fn arguments(binds: Vec<Bind>) -> Result<AnyArguments, sqlx::Error> {
    let mut args = AnyArguments::default();
    args.reserve(binds.len(), 0);
    for bind in binds {
        match bind {
            Bind::Text(v) => args.add(v),
            Bind::Shared(v) => args.add(v.to_string()),
            Bind::Int(v) => args.add(v),
            Bind::OptText(v) => args.add(v),
        }
        .map_err(sqlx::Error::Encode)?;
    }
    Ok(args)
}

/// Hands out one shared copy of a text column's value while it repeats from row to row (a
/// batch's rows mostly have the same user, token, model and details).
#[derive(Default)]
pub struct SharedText<'a> {
    last: Option<(&'a str, Arc<str>)>,
}

impl<'a> SharedText<'a> {
    /// `value` as a shared string: the previous one when it is equal.
    pub fn get(&mut self, value: &'a str) -> Arc<str> {
        match &self.last {
            Some((text, shared)) if *text == value => shared.clone(),
            _ => {
                let shared: Arc<str> = Arc::from(value);
                self.last = Some((value, shared.clone()));
                shared
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_int_arrays_are_json() {
        assert_eq!(json_int_array(std::iter::empty()), "[]");
        assert_eq!(
            json_int_array([i64::MIN, 0, 7].into_iter()),
            "[-9223372036854775808,0,7]"
        );
    }

    #[test]
    fn bigint_arrays_are_postgres_array_literals() {
        assert_eq!(bigint_array(std::iter::empty()), "{}");
        assert_eq!(bigint_array([7].into_iter()), "{7}");
        assert_eq!(
            bigint_array([i64::MIN, -1, 0, i64::MAX].into_iter()),
            "{-9223372036854775808,-1,0,9223372036854775807}"
        );
    }

    #[test]
    fn placeholders_are_numbered_in_order() {
        let mut q = DynQuery::new("SELECT 1 FROM t WHERE a = ");
        q.bind_text("x")
            .push(" AND b IN (")
            .bind_int(1)
            .push(", ")
            .bind_int(2)
            .push(")");
        assert_eq!(q.sql(), "SELECT 1 FROM t WHERE a = $1 AND b IN ($2, $3)");
    }

    #[test]
    fn batches_on_sqlite_use_anonymous_placeholders() {
        use crate::store::DbKind;
        for (kind, sql) in [
            (DbKind::Sqlite, "INSERT INTO t VALUES (?, ?)"),
            (DbKind::Postgres, "INSERT INTO t VALUES ($1, $2)"),
        ] {
            let mut q = DynQuery::batch(kind, "INSERT INTO t VALUES (");
            q.bind_int(1).push(", ").bind_text("x").push(")");
            assert_eq!(q.sql(), sql);
        }
    }

    #[test]
    fn shared_text_hands_out_one_copy_while_the_value_repeats() {
        let mut shared = SharedText::default();
        let a = shared.get("alice");
        let again = shared.get("alice");
        let b = shared.get("bob");
        assert!(Arc::ptr_eq(&a, &again));
        assert_eq!(&*b, "bob");
        assert!(
            !Arc::ptr_eq(&shared.get("alice"), &a),
            "only the last value is kept"
        );
    }
}
