use super::*;

fn err(q: &str) -> QueryError {
    parse_program(q, 0).unwrap_err()
}

#[test]
fn stages_split_on_shift() {
    let p = parse_program(r#"select(_["x"] > 10) >> _["foo"]"#, 0).unwrap();
    assert_eq!(p.stages.len(), 2);
    assert_eq!(p.stages[1].1, 23);
}

#[test]
fn precedence() {
    let p = parse_program("1 + 2 * 3 == 7 && !false", 0).unwrap();
    assert!(matches!(p.stages[0].0, Ast::And(..)));
}

#[test]
fn trailing_block_becomes_lambda_argument() {
    let p = parse_program(r#"group_by(_["g"]) { |row| sum(row["x"]) }"#, 0).unwrap();
    let Ast::Call { args, .. } = &p.stages[0].0 else {
        panic!()
    };
    assert!(matches!(args[1], Ast::Lambda(ref ps, _) if ps.len() == 1));
}

#[test]
fn object_literal_forms() {
    let p = parse_program(r#"{"a" => 1, b: 2, "c": 3,}"#, 0).unwrap();
    assert!(matches!(&p.stages[0].0, Ast::Object(e) if e.len() == 3));
}

#[test]
fn error_missing_paren_says_what_was_expected() {
    let e = err("sum(_.x");
    assert_eq!(e.pos, 7);
    assert_eq!(
        e.msg,
        "expected ',' or ')' in the argument list, found end of query"
    );
}

#[test]
fn error_empty_stage() {
    let e = err("count() >>");
    assert_eq!(e.msg, "expected a stage expression, found end of query");
}

#[test]
fn error_bad_token_after_stage() {
    let e = err("_.x )");
    assert_eq!(e.pos, 4);
    assert!(
        e.msg.starts_with("expected '>>' or end of query"),
        "{}",
        e.msg
    );
}

#[test]
fn defs_then_stages() {
    let p = parse_program(
        "def big(r, n) = r.content_length >= n; select(big(_, 5))",
        0,
    )
    .unwrap();
    assert_eq!(p.defs.len(), 1);
    assert_eq!(p.defs[0].arity, 2);
}

#[test]
fn long_chains_of_unary_binary_and_postfix_operators_are_bounded_too() {
    // Each would build a tree deep enough to overflow the stack in the
    // compiler, the evaluator or the tree's own drop.
    for q in [
        format!("0-{}1", "-".repeat(5000)),
        format!("{}true", "!".repeat(5000)),
        format!("1{}", "+1".repeat(5000)),
        format!("_{}", ".a".repeat(5000)),
        format!("_{}", "[0]".repeat(5000)),
        format!("1{}", ".abs()".repeat(5000)),
        format!(
            "{}1{}{}",
            "(".repeat(150),
            "+1".repeat(150),
            ")".repeat(150)
        ),
    ] {
        assert!(err(&q).msg.contains("nested too deeply"), "{}", &q[..20]);
    }
    let ok = format!("1{}", "+1".repeat(150));
    assert!(parse_program(&ok, 0).is_ok());
}

#[test]
fn deep_nesting_is_an_error() {
    let q = "(".repeat(1000) + "1" + &")".repeat(1000);
    assert!(err(&q).msg.contains("nested too deeply"));
}
