// The op spec's parser, shared by the build scripts of opkit-sys (the raw declarations)
// and opkit (the safe wrappers): `include!`d, since a build script cannot depend on its
// sibling crate's code. Standard library only.

/// (op name, [(kind, parameter name)]) in the order of OPKIT_FOR_EACH_OP in spec/ops.h.
fn parse_spec(text: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut order = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("X(") {
            if let Some(end) = rest.find(')') {
                order.push(rest[..end].to_string());
            }
        }
    }
    let mut ops = Vec::new();
    for name in order {
        let head = format!("#define OPKIT_PARAMS_{}(P)", name);
        let start = text.find(&head).unwrap_or_else(|| panic!("spec/ops.h: no {}", head));
        let body_start = start + head.len();
        // The definition runs over continued lines (ending in '\').
        let mut body = String::new();
        for line in text[body_start..].lines() {
            body.push_str(line);
            if !line.trim_end().ends_with('\\') {
                break;
            }
        }
        let mut params = Vec::new();
        let mut rest = body.as_str();
        while let Some(p) = rest.find("P(") {
            let after = &rest[p + 2..];
            let end = after.find(')').expect("spec/ops.h: unclosed P(");
            let mut it = after[..end].split(',').map(|s| s.trim().to_string());
            let kind = it.next().unwrap();
            let pname = it.next().expect("spec/ops.h: P(kind, name)");
            params.push((kind, pname));
            rest = &after[end..];
        }
        ops.push((name, params));
    }
    ops
}

/// spec/ops.h: $OPKIT_SPEC, else the opkit source tree this crate sits in.
fn spec_path() -> PathBuf {
    if let Ok(p) = env::var("OPKIT_SPEC") {
        return PathBuf::from(p);
    }
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    manifest.join("../../../spec/ops.h")
}

