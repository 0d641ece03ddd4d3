//! JSON_DETAILED() / JSON_PRETTY(): MariaDB's `json_nice` in DETAILED mode,
//! replayed over a parsed document.
//!
//! MariaDB walks the scanner's events (a key, an array value, the end of a
//! container) and writes as it goes: a newline and `depth * tab` spaces before
//! every member, `": "` after a key, a newline before a container that is an
//! object member's value, and a newline before the closing bracket of a
//! container with more than one scalar, or of any object. An array whose only
//! element is a scalar is printed on one line: MariaDB writes it expanded, then
//! cuts the value, the newline and the indentation back and writes the value
//! again. `value_size` replays that: the number of scalars seen since the last
//! container opened, -1 once an object opened or any container closed. Scalars,
//! keys and strings keep their source text. The tab size is clamped to 0..=8.

use super::json_tree::{Json, V};

/// MariaDB's TAB_SIZE_LIMIT.
pub const TAB_LIMIT: i64 = 8;

struct Nice {
    out: String,
    tab: usize,
    depth: usize,
    first: bool,
    value_size: i64,
    /// Text of the last scalar written.
    last: String,
}

pub fn detailed(j: &Json, tab: i64) -> String {
    let mut n = Nice {
        out: String::new(),
        tab: tab.clamp(0, TAB_LIMIT) as usize,
        depth: 0,
        first: true,
        value_size: 0,
        last: String::new(),
    };
    n.value(j, false);
    n.out
}

fn scalar_text(j: &Json) -> String {
    match &j.v {
        V::Null => "null".into(),
        V::Bool(b) => if *b { "true" } else { "false" }.into(),
        V::Num(s) => s.clone(),
        V::Str(s) => format!("\"{s}\""),
        V::Arr(_) | V::Obj(_) => String::new(),
    }
}

impl Nice {
    fn tab(&mut self, depth: usize) {
        self.out.push('\n');
        for _ in 0..depth * self.tab {
            self.out.push(' ');
        }
    }

    fn member(&mut self, key: &str, j: &Json) {
        if !self.first {
            self.out.push(',');
        }
        self.tab(self.depth);
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\": ");
        self.value(j, true);
    }

    fn element(&mut self, j: &Json) {
        if !self.first {
            self.out.push(',');
        }
        if self.depth > 0 {
            self.tab(self.depth);
        }
        self.value(j, false);
    }

    fn value(&mut self, j: &Json, after_key: bool) {
        if j.is_scalar() {
            self.last = scalar_text(j);
            self.out.push_str(&self.last.clone());
            self.first = false;
            if self.value_size != -1 {
                self.value_size += 1;
            }
            return;
        }
        if self.depth > 0 && after_key {
            self.tab(self.depth);
        }
        let object = matches!(j.v, V::Obj(_));
        self.out.push(if object { '{' } else { '[' });
        self.first = true;
        self.value_size = if object { -1 } else { 0 };
        self.depth += 1;
        match &j.v {
            V::Obj(members) => members.iter().for_each(|(k, v)| self.member(k, v)),
            V::Arr(items) => items.iter().for_each(|v| self.element(v)),
            _ => {}
        }
        self.close(object);
    }

    fn close(&mut self, object: bool) {
        self.depth -= 1;
        if self.value_size > 1 || self.value_size == -1 {
            self.tab(self.depth);
        }
        if self.value_size == 1 && !object {
            // Cut back the value, its indentation and newline; write it again.
            let cut = self.last.len() + (self.depth + 1) * self.tab + 1;
            self.out.truncate(self.out.len().saturating_sub(cut));
            self.out.push_str(&self.last.clone());
        }
        self.out.push(if object { '}' } else { ']' });
        self.first = false;
        self.value_size = -1;
    }
}

#[cfg(test)]
mod tests {
    use super::super::json_tree::parse;
    use super::detailed;

    fn nice(s: &str, tab: i64) -> String {
        detailed(&parse(s.as_bytes()).expect("valid"), tab)
    }

    #[test]
    fn matches_mariadb() {
        assert_eq!(
            nice(r#"{"a":1,"b":[1,2,{"c":[]}],"d":{}, "e":"x y", "f": [[1]]}"#, 4),
            "{\n    \"a\": 1,\n    \"b\": \n    [\n        1,\n        2,\n        {\n            \"c\": \n            []\n        }\n    ],\n    \"d\": \n    {\n    },\n    \"e\": \"x y\",\n    \"f\": \n    [\n        [1]\n    ]\n}"
        );
        assert_eq!(nice("[1]", 4), "[1]");
        assert_eq!(nice("[1, 2]", 4), "[\n    1,\n    2\n]");
        assert_eq!(nice("1", 4), "1");
        assert_eq!(nice(r#"{"a":1}"#, 0), "{\n\"a\": 1\n}");
        assert_eq!(nice(r#"{"a":[1]}"#, 0), "{\n\"a\": \n[1]\n}");
        assert_eq!(
            nice(r#"[{"a": 1}, [], {}]"#, 0),
            "[\n{\n\"a\": 1\n},\n[],\n{\n}\n]"
        );
        assert_eq!(nice(r#"{"a":1}"#, 100), "{\n        \"a\": 1\n}");
    }
}
