//! [`Val`] to and from PostgreSQL's types: parameters as the statement's types ask, a row's
//! values by their columns' types.

use std::sync::Arc;

use crate::store::sql::{Row, Val};
use crate::store::StoreResult;

/// PostgreSQL's half: each value as the statement's parameter `types` ask.
pub(super) fn pg_params(
    params: &[Val],
    types: &[postgres::types::Type],
) -> Vec<Box<dyn postgres::types::ToSql + Sync>> {
    use postgres::types::Type;
    params
        .iter()
        .zip(types)
        .map(|(v, t)| -> Box<dyn postgres::types::ToSql + Sync> {
            match v {
                // A NULL must still be of the parameter's type for the driver to send it.
                Val::Null if *t == Type::INT8 => Box::new(Option::<i64>::None),
                Val::Null if *t == Type::FLOAT8 => Box::new(Option::<f64>::None),
                Val::Null if *t == Type::BOOL => Box::new(Option::<bool>::None),
                Val::Null => Box::new(Option::<String>::None),
                Val::Int(i) => Box::new(*i),
                Val::Real(r) => Box::new(*r),
                Val::Text(s) => Box::new(s.clone()),
                Val::Bool(b) => Box::new(*b),
            }
        })
        .collect()
}

/// PostgreSQL's rows, their values by their columns' types.
pub(super) fn pg_rows(rows: &[postgres::Row]) -> StoreResult<Vec<Row>> {
    let Some(first) = rows.first() else {
        return Ok(Vec::new());
    };
    let names: Arc<[String]> = first
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    rows.iter()
        .map(|r| {
            Ok(Row {
                names: names.clone(),
                vals: pg_values(r)?,
            })
        })
        .collect()
}

fn pg_values(r: &postgres::Row) -> StoreResult<Vec<Val>> {
    use postgres::types::Type;
    let mut out = Vec::with_capacity(r.len());
    for (i, c) in r.columns().iter().enumerate() {
        let t = c.type_();
        let v = if *t == Type::INT8 {
            r.try_get::<_, Option<i64>>(i)?.map_or(Val::Null, Val::Int)
        } else if *t == Type::INT4 {
            r.try_get::<_, Option<i32>>(i)?
                .map_or(Val::Null, |v| Val::Int(v.into()))
        } else if *t == Type::FLOAT8 {
            r.try_get::<_, Option<f64>>(i)?.map_or(Val::Null, Val::Real)
        } else if *t == Type::BOOL {
            r.try_get::<_, Option<bool>>(i)?
                .map_or(Val::Null, Val::Bool)
        } else {
            r.try_get::<_, Option<String>>(i)?
                .map_or(Val::Null, Val::Text)
        };
        out.push(v);
    }
    Ok(out)
}
