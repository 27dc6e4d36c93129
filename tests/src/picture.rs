//! Reading the board pictures (SVG, `hexveil_view::svg`) in tests: the
//! opening tags of elements and their attributes, on an SVG or on a page
//! that holds one.

/// The opening tags of elements whose class list holds `class`.
pub fn tags<'s>(svg: &'s str, class: &str) -> Vec<&'s str> {
    svg.split('<')
        .filter(|t| attr(t, "class").is_some_and(|c| c.split(' ').any(|w| w == class)))
        .map(|t| t.split('>').next().unwrap_or(t))
        .collect()
}

/// An attribute's value in an opening tag, as written (not unescaped).
pub fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(tag[start..end].to_string())
}
