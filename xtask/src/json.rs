//! A minimal JSON reader (std only): enough to read the samples' `--json` documents and to splice
//! parts of them, unchanged, into the bench document.
//!
//! Numbers are read as `f64`, which holds every value the samples write exactly enough for
//! tables and checks; text that is copied on is taken from the input verbatim ([`raw_member`]),
//! never re-serialised, so nothing is rounded on the way through.

/// A parsed JSON value. Objects keep their members in document order.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member `key` of an object (`None` for a missing key or a non-object).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().find(|(name, _)| name == key).map(|(_, value)| value),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(number) => Some(*number),
            _ => None,
        }
    }

    /// The elements of an array; empty for anything else.
    pub fn elements(&self) -> &[Value] {
        match self {
            Value::Array(elements) => elements,
            _ => &[],
        }
    }
}

/// Parses one JSON document (surrounding whitespace allowed, nothing else after it).
pub fn parse(text: &str) -> Result<Value, String> {
    let mut parser = Parser { text, pos: 0 };
    let value = parser.value()?;
    parser.skip_whitespace();
    if parser.pos != text.len() {
        return Err(parser.error("text after the document"));
    }
    Ok(value)
}

/// The text of member `key` of the document's top-level object, exactly as written in `text`.
/// `None` if `text` is not a JSON object or has no such member.
pub fn raw_member<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let mut parser = Parser { text, pos: 0 };
    parser.skip_whitespace();
    parser.expect(b'{').ok()?;
    parser.skip_whitespace();
    if parser.eat(b'}') {
        return None;
    }
    loop {
        parser.skip_whitespace();
        let name = parser.string().ok()?;
        parser.skip_whitespace();
        parser.expect(b':').ok()?;
        parser.skip_whitespace();
        let start = parser.pos;
        parser.value().ok()?;
        if name == key {
            return Some(&text[start..parser.pos]);
        }
        parser.skip_whitespace();
        if !parser.eat(b',') {
            return None;
        }
    }
}

/// The elements of the JSON array `text`, each exactly as written. `None` if `text` is not an
/// array.
pub fn raw_elements(text: &str) -> Option<Vec<&str>> {
    let mut parser = Parser { text, pos: 0 };
    parser.skip_whitespace();
    parser.expect(b'[').ok()?;
    let mut elements = Vec::new();
    parser.skip_whitespace();
    if parser.eat(b']') {
        return Some(elements);
    }
    loop {
        parser.skip_whitespace();
        let start = parser.pos;
        parser.value().ok()?;
        elements.push(&text[start..parser.pos]);
        parser.skip_whitespace();
        if parser.eat(b']') {
            return Some(elements);
        }
        parser.expect(b',').ok()?;
    }
}

/// `text` as a JSON string literal, quotes included.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `json` (a whole value) with `indent` added after each line break, to nest it in a document.
/// Safe for any JSON text: line breaks inside strings are always escaped.
pub fn indent(json: &str, indent: &str) -> String {
    json.trim().replace('\n', &format!("\n{indent}"))
}

/// `json` with `indent` taken away after each line break: the text [`indent`] was given.
pub fn outdent(json: &str, indent: &str) -> String {
    json.trim().replace(&format!("\n{indent}"), "\n")
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> String {
        format!("invalid JSON at byte {}: {what}", self.pos)
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        if found {
            self.pos += 1;
        }
        found
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        if self.eat(byte) {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{}`", byte as char)))
        }
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_whitespace();
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string().map(Value::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) if self.keyword("null") => Ok(Value::Null),
            Some(_) if self.keyword("true") => Ok(Value::Bool(true)),
            Some(_) if self.keyword("false") => Ok(Value::Bool(false)),
            Some(_) => Err(self.error("expected a value")),
            None => Err(self.error("unexpected end")),
        }
    }

    fn keyword(&mut self, word: &str) -> bool {
        let found = self.text[self.pos..].starts_with(word);
        if found {
            self.pos += word.len();
        }
        found
    }

    fn object(&mut self) -> Result<Value, String> {
        self.expect(b'{')?;
        let mut members = Vec::new();
        self.skip_whitespace();
        if self.eat(b'}') {
            return Ok(Value::Object(members));
        }
        loop {
            self.skip_whitespace();
            let name = self.string()?;
            self.skip_whitespace();
            self.expect(b':')?;
            members.push((name, self.value()?));
            self.skip_whitespace();
            if self.eat(b'}') {
                return Ok(Value::Object(members));
            }
            self.expect(b',')?;
        }
    }

    fn array(&mut self) -> Result<Value, String> {
        self.expect(b'[')?;
        let mut elements = Vec::new();
        self.skip_whitespace();
        if self.eat(b']') {
            return Ok(Value::Array(elements));
        }
        loop {
            elements.push(self.value()?);
            self.skip_whitespace();
            if self.eat(b']') {
                return Ok(Value::Array(elements));
            }
            self.expect(b',')?;
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.pos;
        while matches!(self.peek(), Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
            self.pos += 1;
        }
        let literal = &self.text[start..self.pos];
        literal.parse().map(Value::Number).map_err(|_| self.error(&format!("bad number `{literal}`")))
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out = String::new();
        loop {
            // Copy the run up to the next quote or escape in one piece (keeps UTF-8 intact).
            let rest = &self.text[self.pos..];
            let run = rest.find(['"', '\\']).ok_or_else(|| self.error("unterminated string"))?;
            out.push_str(&rest[..run]);
            self.pos += run;
            if self.eat(b'"') {
                return Ok(out);
            }
            self.pos += 1; // the backslash
            let escaped = self.peek().ok_or_else(|| self.error("unterminated string"))?;
            self.pos += 1;
            match escaped {
                b'"' => out.push('"'),
                b'\\' => out.push('\\'),
                b'/' => out.push('/'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => out.push(self.unicode_escape()?),
                _ => return Err(self.error("bad escape")),
            }
        }
    }

    /// The character of a `\uXXXX` escape (the `\u` already read), joining a surrogate pair.
    fn unicode_escape(&mut self) -> Result<char, String> {
        let high = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&high) && self.text[self.pos..].starts_with("\\u") {
            self.pos += 2;
            let low = self.hex4()?;
            0x10000 + ((high - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF)
        } else {
            high
        };
        Ok(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self.text.get(self.pos..self.pos + 4).ok_or_else(|| self.error("short \\u escape"))?;
        let code = u32::from_str_radix(digits, 16).map_err(|_| self.error("bad \\u escape"))?;
        self.pos += 4;
        Ok(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_elements_and_outdent_give_back_what_was_nested() {
        let inner = "{\n  \"a\": [1, 2],\n  \"b\": \"x\\ny\"\n}";
        let outer = format!("[\n    {},\n    2, \"three\" ]", indent(inner, "    "));
        let elements = raw_elements(&outer).unwrap();
        assert_eq!(elements.len(), 3);
        assert_eq!(outdent(elements[0], "    "), inner);
        assert_eq!(elements[1..], ["2", "\"three\""]);
        assert_eq!(raw_elements("[]"), Some(vec![]));
        assert_eq!(raw_elements("{}"), None);
        assert_eq!(raw_elements("[1,"), None);
    }

    #[test]
    fn parses_a_sample_document() {
        let text = r#"{
  "sample": "02_reduce",
  "device": { "name": "llvmpipe (LLVM 19.1.7, 256 bits)", "subgroup_size": 8 },
  "results": [ { "variant": "fast add u32", "size": null, "status": "PASS" } ],
  "bench": [],
  "ok": true, "neg": -1.5e3, "esc": "a\"b\\c\u00e9\ud83d\ude00\n"
}"#;
        let doc = parse(text).unwrap();
        assert_eq!(doc.get("sample").and_then(Value::as_str), Some("02_reduce"));
        let device = doc.get("device").unwrap();
        assert_eq!(device.get("subgroup_size").and_then(Value::as_f64), Some(8.0));
        assert_eq!(doc.get("results").unwrap().elements()[0].get("size"), Some(&Value::Null));
        assert!(doc.get("bench").unwrap().elements().is_empty());
        assert_eq!(doc.get("ok"), Some(&Value::Bool(true)));
        assert_eq!(doc.get("neg").and_then(Value::as_f64), Some(-1500.0));
        assert_eq!(doc.get("esc").and_then(Value::as_str), Some("a\"b\\c\u{e9}\u{1F600}\n"));
        assert_eq!(doc.get("missing"), None);
    }

    #[test]
    fn rejects_broken_documents() {
        for text in ["", "{", "{\"a\": }", "[1, 2", "{\"a\": 1} x", "\"open", "nul", "{\"a\" 1}"] {
            assert!(parse(text).is_err(), "{text:?} parsed");
        }
    }

    #[test]
    fn raw_members_are_verbatim() {
        let text = "{ \"a\": [1, {\"b\": \"}\"}],\n  \"device\": {\n    \"x\": 1.50\n  }, \"c\": null }";
        assert_eq!(raw_member(text, "device"), Some("{\n    \"x\": 1.50\n  }"));
        assert_eq!(raw_member(text, "a"), Some("[1, {\"b\": \"}\"}]"));
        assert_eq!(raw_member(text, "c"), Some("null"));
        assert_eq!(raw_member(text, "b"), None);
        assert_eq!(raw_member("[1]", "a"), None);
    }

    #[test]
    fn quoting_round_trips() {
        let text = "tab\there \"quoted\" back\\slash\u{1}";
        assert_eq!(quote(text), r#""tab\there \"quoted\" back\\slash\u0001""#);
        assert_eq!(parse(&quote(text)), Ok(Value::String(text.to_string())));
    }

    #[test]
    fn indenting_nests_lines() {
        assert_eq!(indent("{\n  \"a\": 1\n}\n", "    "), "{\n      \"a\": 1\n    }");
    }
}
