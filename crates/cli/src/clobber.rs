//! One check for every command that writes: an output must never
//! overwrite one of the command's inputs.
//!
//! An output path is refused when it is an input (the same file or
//! directory, however spelled: `./a`, `a/../a` and symbolic links resolve
//! alike) or when an input lies inside it (a directory the command writes
//! into or replaces wholesale would take the input with it). The check runs
//! before any work, so a refused command has changed nothing.

use std::path::{Path, PathBuf};

use anyhow::bail;

/// The absolute, symlink-free form of `p`, also for a path that does not
/// exist yet: its nearest existing ancestor is resolved and the rest kept.
fn resolve(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut rest = Vec::new();
    let mut cur = abs.as_path();
    loop {
        if let Ok(c) = cur.canonicalize() {
            let mut out = c;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (cur.parent(), cur.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                cur = parent;
            }
            _ => return abs,
        }
    }
}

/// Something a command reads.
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    /// One file (or a directory taken as a whole).
    File(&'a Path),
    /// A directory whose files the command reads, whatever their names
    /// (a run's `traces/`): an output anywhere inside it may be read back
    /// or replace one of them, so it is refused too.
    DirContents(&'a Path),
}

/// Refuses `output` (named `what` in the message, e.g. `--records`) when it
/// is one of `inputs` or holds one of them.
pub fn refuse_output_over_inputs(
    what: &str,
    output: &Path,
    inputs: &[&Path],
) -> anyhow::Result<()> {
    let inputs: Vec<Input<'_>> = inputs.iter().map(|p| Input::File(p)).collect();
    refuse_output_over(what, output, &inputs)
}

/// [`refuse_output_over_inputs`] for each output flag given (name, path),
/// against the input flags given: for commands whose inputs and outputs
/// are all optional flags (`--log`/`--trace`, `--stats`/`--cert`).
pub fn refuse_optional_outputs(
    outputs: &[(&str, Option<&std::path::PathBuf>)],
    inputs: &[Option<&std::path::PathBuf>],
) -> anyhow::Result<()> {
    let inputs: Vec<&Path> = inputs.iter().flatten().map(|p| p.as_path()).collect();
    for (what, out) in outputs {
        if let Some(out) = out {
            refuse_output_over_inputs(what, out, &inputs)?;
        }
    }
    Ok(())
}

/// Refuses `output` (named `what` in the message) when it is one of
/// `inputs`, holds one of them, or lies inside an [`Input::DirContents`].
pub fn refuse_output_over(what: &str, output: &Path, inputs: &[Input<'_>]) -> anyhow::Result<()> {
    let out = resolve(output);
    for input in inputs {
        let (Input::File(path) | Input::DirContents(path)) = *input;
        let inp = resolve(path);
        if inp == out {
            bail!(
                "{what} {}: that is an input of this command ({}); choose another output path",
                output.display(),
                path.display()
            );
        }
        if inp.starts_with(&out) {
            bail!(
                "{what} {}: the input {} lies inside it, and writing there would replace it; \
                 choose another output path",
                output.display(),
                path.display()
            );
        }
        if matches!(input, Input::DirContents(_)) && out.starts_with(&inp) {
            bail!(
                "{what} {}: it lies inside {}, whose files this command reads; \
                 choose another output path",
                output.display(),
                path.display()
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_file_however_spelled_and_a_directory_holding_an_input_are_refused() {
        let d = std::env::temp_dir().join(format!("ramp-clobber-{}", std::process::id()));
        std::fs::create_dir_all(d.join("run")).unwrap();
        std::fs::write(d.join("run/records.ndjson"), "").unwrap();
        let rec = d.join("run/records.ndjson");
        let spelled = d.join("run/../run/./records.ndjson");
        assert!(refuse_output_over_inputs("-o", &spelled, &[&rec]).is_err());
        assert!(refuse_output_over_inputs("-o", &d.join("run"), &[&rec]).is_err());
        // A new file beside the input, and a file inside an input directory
        // (nothing of the input is replaced), are fine.
        assert!(refuse_output_over_inputs("-o", &d.join("run/new.html"), &[&rec]).is_ok());
        assert!(
            refuse_output_over_inputs("-o", &d.join("run/report.html"), &[&d.join("run")]).is_ok()
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn any_file_inside_a_directory_whose_files_are_read_is_refused() {
        let d = std::env::temp_dir().join(format!("ramp-clobber-dir-{}", std::process::id()));
        std::fs::create_dir_all(d.join("run/traces")).unwrap();
        std::fs::write(d.join("run/traces/00-a.ndjson"), "").unwrap();
        let traces = d.join("run/traces");
        let read = [Input::DirContents(&traces)];
        for out in [
            "run/traces/00-a.ndjson",
            "run/traces/new.html",
            "run/traces",
        ] {
            let e = refuse_output_over("-o", &d.join(out), &read).unwrap_err();
            assert!(
                e.to_string().contains("choose another output path"),
                "{out}: {e}"
            );
        }
        assert!(refuse_output_over("-o", &d.join("run/report.html"), &read).is_ok());
        let _ = std::fs::remove_dir_all(&d);
    }
}
