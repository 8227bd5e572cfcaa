//! A compiled query: stages, the projection, and how the pipeline splits
//! between parallel chunk workers and the final serial part.

use crate::agg::State;
use crate::eval::{eval_owned, Env, Flow};
use crate::json::{self, JsonError, Scan};
use crate::lang::ast::Ast;
use crate::lang::parse::{parse_defs, parse_program};
use crate::lang::QueryError;
use crate::plan::{Compiler, Stage, StageKind};
use crate::projection::{filter_projection, projection};
use crate::value::{Map, Value};

/// A helper file given with `-f`: its name (for errors) and text.
#[derive(Debug, Clone)]
pub struct HelperFile {
    /// Path as given.
    pub name: String,
    /// Contents.
    pub text: String,
}

/// A runtime error in a stage.
#[derive(Debug, Clone, PartialEq)]
pub struct StageError {
    /// 0-based stage index.
    pub stage: usize,
    /// Message.
    pub msg: String,
}

/// A compiled, ready-to-run query.
#[derive(Debug, Clone)]
pub struct Query {
    /// The query text.
    pub text: String,
    /// Stages.
    pub stages: Vec<Stage>,
    /// Variable slots.
    pub n_vars: usize,
    /// Top-level keys to extract per line; `None` = parse lines fully.
    pub projection: Option<Vec<String>>,
    proj_keys: Vec<Box<[u8]>>,
    /// Keys read by a filter-only query (see [`Query::raw_rows`]).
    filter_keys: Option<Vec<String>>,
    /// Print surviving input lines verbatim instead of re-encoding them.
    pub raw: bool,
    /// An identity stage (`>> _`) was dropped: surviving lines are still
    /// re-encoded (compact JSON), as that stage's output would be, but only
    /// they are parsed whole.
    pub reencode: bool,
    /// Index of the first aggregating stage (`stages.len()` if none).
    pub split: usize,
    /// Percentiles use sketches.
    pub approx: bool,
}

impl Query {
    /// Compiles `text` with helper files. Errors are rendered with a caret.
    pub fn compile(
        text: &str,
        helpers: &[HelperFile],
        approx: bool,
    ) -> Result<Query, crate::CompileError> {
        let mut defs = Vec::new();
        let mut next = 0;
        for h in helpers {
            let (d, n) = parse_defs(&h.text, next).map_err(|e| e.render(&h.text, &h.name))?;
            defs.extend(d);
            next = n;
        }
        let prog = parse_program(text, next).map_err(|e| e.render(text, "query"))?;
        // Definitions in the query itself shadow the helper files'.
        let mut all = defs;
        all.extend(prog.defs.iter().cloned());
        let mut seen = std::collections::HashMap::new();
        for (i, d) in all.iter().enumerate() {
            seen.insert(d.name.clone(), i);
        }
        let all: Vec<_> = all
            .iter()
            .enumerate()
            .filter(|(i, d)| seen.get(&d.name) == Some(i))
            .map(|(_, d)| d.clone())
            .collect();
        let mut cx = Compiler::new(&all, prog.n_vars);
        let mut stages = Vec::new();
        // `_` as a stage passes every value on unchanged: dropping it keeps
        // the rest of the pipeline's projection (a trailing `>> _` used to
        // force every row to be parsed whole). A query of `_` alone stays.
        let identity = |a: &Ast| matches!(a, Ast::Row);
        let keep_all = prog.stages.iter().all(|(a, _)| identity(a));
        let dropped_identity = !keep_all && prog.stages.iter().any(|(a, _)| identity(a));
        for (i, (ast, pos)) in prog.stages.iter().enumerate() {
            if identity(ast) && !(keep_all && i == 0) {
                continue;
            }
            let end = prog.stages.get(i + 1).map_or(text.len(), |s| s.1);
            let src = text
                .get(*pos..end)
                .unwrap_or("")
                .trim()
                .trim_end_matches(">>")
                .trim()
                .to_string();
            let st = cx
                .stage(ast, *pos, src)
                .map_err(|e: QueryError| e.render(text, "query"))?;
            stages.push(st);
        }
        let split = stages
            .iter()
            .position(|s| matches!(s.kind, StageKind::Agg { .. }))
            .unwrap_or(stages.len());
        let projection = projection(&stages);
        let filter_keys = filter_projection(&stages);
        let proj_keys = projection
            .iter()
            .flatten()
            .map(|k| k.as_bytes().to_vec().into_boxed_slice())
            .collect();
        Ok(Query {
            text: text.to_string(),
            stages,
            n_vars: cx.n_vars(),
            projection,
            proj_keys,
            filter_keys,
            raw: false,
            reencode: dropped_identity,
            split,
            approx,
        })
    }

    /// For a filter-only query (`select(...)` stages), a variant that decodes
    /// only the keys the filters read and prints the surviving lines as they
    /// are (validated, surrounding whitespace trimmed) instead of parsing and
    /// re-encoding every field. `None` for other queries.
    pub fn raw_rows(&self) -> Option<Query> {
        let keys = self.filter_keys.clone()?;
        let mut q = self.clone();
        q.proj_keys = keys
            .iter()
            .map(|k| k.as_bytes().to_vec().into_boxed_slice())
            .collect();
        q.projection = Some(keys);
        q.raw = true;
        Some(q)
    }

    /// Whether the first aggregating stage can merge partial states.
    pub fn mergeable(&self) -> bool {
        match self.stages.get(self.split).map(|s| &s.kind) {
            Some(StageKind::Agg { plan, .. }) => plan.mergeable(),
            _ => false,
        }
    }

    /// A hash of the compiled plan (identifies compatible partial states).
    pub fn plan_hash(&self) -> String {
        let text = format!(
            "{:?}|{}",
            self.stages.iter().map(|s| &s.kind).collect::<Vec<_>>(),
            self.approx
        );
        format!("{:016x}", ramp_vocab::fnv::fnv1a64(text.as_bytes()))
    }

    /// A fresh state for the first aggregating stage.
    pub fn new_state(&self) -> Option<State> {
        match self.stages.get(self.split).map(|s| &s.kind) {
            Some(StageKind::Agg { plan, .. }) => Some(State::with_mode(plan, self.approx)),
            _ => None,
        }
    }

    /// Decodes the line that starts at `data[start]` (only the projection,
    /// when there is one). Returns `Ok(None)` for a blank line, and the index
    /// where the line ends (its newline or `data.len()`).
    pub fn read_at(
        &self,
        data: &[u8],
        start: usize,
        scratch: &mut Vec<Option<Value>>,
    ) -> (Result<Option<Value>, JsonError>, usize) {
        let line_end =
            |from: usize| memchr::memchr(b'\n', &data[from..]).map_or(data.len(), |i| from + i);
        if self.projection.is_none() {
            return json::parse_line_at(data, start);
        }
        scratch.clear();
        scratch.resize(self.proj_keys.len(), None);
        match json::scan_line(data, start, &self.proj_keys, scratch) {
            Err(e) => (Err(e), line_end(start)),
            Ok((Scan::Blank, end)) => (Ok(None), end),
            Ok((Scan::NotObject, end)) => (json::parse_line(&data[start..end]).map(Some), end),
            Ok((Scan::Object, end)) => {
                let mut m = Map::with_capacity(scratch.len());
                for (k, v) in self.projection.iter().flatten().zip(scratch.drain(..)) {
                    if let Some(v) = v {
                        m.insert(k.clone(), v);
                    }
                }
                (Ok(Some(Value::Object(m))), end)
            }
        }
    }

    /// Runs per-value stages `from..to` (no aggregations) on `v`, calling
    /// `emit` for each result.
    pub fn run_map_stages(
        &self,
        from: usize,
        to: usize,
        v: Value,
        env: &mut Env,
        emit: &mut dyn FnMut(Value, &mut Env) -> Result<(), StageError>,
    ) -> Result<(), StageError> {
        if from >= to {
            return emit(v, env);
        }
        let e = |msg: String| StageError { stage: from, msg };
        match &self.stages[from].kind {
            StageKind::Map(x) => match eval_owned(x, v, env) {
                Ok(r) => self.run_map_stages(from + 1, to, r, env, emit),
                Err(Flow::Drop) => Ok(()),
                Err(Flow::Err(m)) => Err(e(m)),
            },
            StageKind::Flat(x) => match eval_owned(x, v, env) {
                Ok(Value::Array(items)) => {
                    for it in items {
                        self.run_map_stages(from + 1, to, it, env, emit)?;
                    }
                    Ok(())
                }
                Ok(Value::Null) | Err(Flow::Drop) => Ok(()),
                Ok(other) => Err(e(format!("flat needs an array, got {}", other.type_name()))),
                Err(Flow::Err(m)) => Err(e(m)),
            },
            StageKind::Agg { .. } => Err(e("internal: aggregation in a per-value segment".into())),
        }
    }
}

/// Runs stages `from..` serially over values that arrive one at a time
/// (after the parallel part): per-value stages stream, each aggregating
/// stage collects until [`Tail::finish`].
pub(crate) struct Tail<'q> {
    q: &'q Query,
    from: usize,
    states: Vec<Option<State>>,
    /// Variable environment.
    pub env: Env,
}

impl<'q> Tail<'q> {
    /// A tail over stages `from..`; `first` is the already-merged state of
    /// stage `from` when it aggregates.
    pub(crate) fn new(q: &'q Query, from: usize, first: Option<State>) -> Self {
        let mut states: Vec<Option<State>> = q
            .stages
            .iter()
            .map(|s| match &s.kind {
                StageKind::Agg { plan, .. } => Some(State::with_mode(plan, q.approx)),
                _ => None,
            })
            .collect();
        if let (Some(f), Some(slot)) = (first, states.get_mut(from)) {
            *slot = Some(f);
        }
        Tail {
            q,
            from,
            states,
            env: Env::new(q.n_vars),
        }
    }

    /// Feeds `v` into stage `i`.
    pub(crate) fn push(
        &mut self,
        i: usize,
        v: Value,
        out: &mut dyn FnMut(Value),
    ) -> Result<(), StageError> {
        let q = self.q;
        let Some(st) = q.stages.get(i) else {
            out(v);
            return Ok(());
        };
        let e = |msg: String| StageError { stage: i, msg };
        match &st.kind {
            StageKind::Agg { plan, .. } => {
                let Some(Some(state)) = self.states.get_mut(i) else {
                    return Err(e("internal: missing aggregation state".into()));
                };
                state
                    .update_plan(plan, &v, &mut self.env)
                    .map_err(|f| e(flow_msg(f)))
            }
            StageKind::Map(x) => match eval_owned(x, v, &mut self.env) {
                Ok(r) => self.push(i + 1, r, out),
                Err(Flow::Drop) => Ok(()),
                Err(Flow::Err(m)) => Err(e(m)),
            },
            StageKind::Flat(x) => match eval_owned(x, v, &mut self.env) {
                Ok(Value::Array(items)) => {
                    for it in items {
                        self.push(i + 1, it, out)?;
                    }
                    Ok(())
                }
                Ok(Value::Null) | Err(Flow::Drop) => Ok(()),
                Ok(other) => Err(e(format!("flat needs an array, got {}", other.type_name()))),
                Err(Flow::Err(m)) => Err(e(m)),
            },
        }
    }

    /// Finishes every aggregating stage in order, pushing results on.
    pub(crate) fn finish(mut self, out: &mut dyn FnMut(Value)) -> Result<(), StageError> {
        for i in self.from..self.q.stages.len() {
            let StageKind::Agg { plan, spread } = &self.q.stages[i].kind else {
                continue;
            };
            let Some(state) = self.states.get_mut(i).and_then(Option::take) else {
                continue;
            };
            let v = state
                .finish_plan(plan, &mut self.env)
                .map_err(|f| StageError {
                    stage: i,
                    msg: flow_msg(f),
                })?;
            match (v, spread) {
                (Value::Array(items), true) => {
                    for it in items {
                        self.push(i + 1, it, out)?;
                    }
                }
                (v, _) => self.push(i + 1, v, out)?,
            }
        }
        Ok(())
    }
}

/// Message of a non-drop flow.
pub(crate) fn flow_msg(f: Flow) -> String {
    match f {
        Flow::Err(m) => m,
        Flow::Drop => "select cannot be used at this point".into(),
    }
}
