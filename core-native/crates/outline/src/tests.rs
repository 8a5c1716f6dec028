use super::*;

/// `kind name Lstart-end` per symbol, children indented: compact to assert on.
fn render(o: &Outline) -> String {
    fn go(out: &mut String, syms: &[Symbol], depth: usize) {
        for s in syms {
            out.push_str(&format!("{}{} {} L{}-{}\n", "  ".repeat(depth), s.kind, s.name, s.start_line, s.end_line));
            go(out, &s.children, depth + 1);
        }
    }
    let mut out = String::new();
    go(&mut out, &o.symbols, 0);
    out
}

fn check(lang: Language, src: &str, expected: &str) -> Outline {
    let o = outline(src, lang).expect("outline");
    assert_eq!(render(&o), expected.trim_start_matches('\n'), "{}", lang.name());
    assert!(!o.has_errors, "{} source has syntax errors", lang.name());
    o
}

#[test]
fn typescript() {
    let src = r#"import { x } from './x';
export interface Shape {
  area(): number;
  name: string;
}
export type Id = string | number;
export enum Color { Red, Green }
export abstract class Base implements Shape {
  name = 'base';
  private handler = () => 1;
  constructor(private readonly id: Id) {}
  abstract area(): number;
  @log
  describe(): string {
    const local = 1;
    return `${this.name}${local}`;
  }
}
export function make(id: Id): Base {
  function inner() {}
  return null as any;
}
const LIMIT = 10, other = 2;
let counter = 0;
export const handler = async (req: Request) => {
  return req;
};
namespace Util {
  export function helper() {}
}
declare module 'ext' {
  export function ext(): void;
}
export default class {}
"#;
    let o = check(
        Language::TypeScript,
        src,
        r#"
interface Shape L2-5
  method area L3-3
  property name L4-4
type Id L6-6
enum Color L7-7
class Base L8-18
  property name L9-9
  method handler L10-10
  constructor constructor L11-11
  method area L12-12
  method describe L14-17
function make L19-22
const LIMIT L23-23
const other L23-23
variable counter L24-24
function handler L25-27
module Util L28-30
  function helper L29-29
module 'ext' L31-33
  function ext L32-32
class default L34-34
"#,
    );
    assert_eq!(o.line_count, 34);
    let make = o.symbols.iter().find(|s| s.name == "make").unwrap();
    assert_eq!(make.signature, "function make(id: Id): Base {");
    let base = o.symbols.iter().find(|s| s.name == "Base").unwrap();
    assert_eq!(base.signature, "abstract class Base implements Shape {");
}

#[test]
fn tsx() {
    let src = "export function App(props: { title: string }) {\n  return <div className=\"app\">{props.title}</div>;\n}\nexport const Button = () => <button />;\n";
    check(Language::Tsx, src, "function App L1-3\nfunction Button L4-4\n");
}

#[test]
fn javascript() {
    let src = "class Store {\n  items = [];\n  static #count = 0;\n  add(x) { this.items.push(x); }\n  get size() { return this.items.length; }\n}\nfunction* gen() { yield 1; }\nvar legacy = function () {};\nmodule.exports = { Store };\nexport default function () {}\n";
    check(
        Language::JavaScript,
        src,
        "class Store L1-6\n  property items L2-2\n  property #count L3-3\n  method add L4-4\n  method size L5-5\nfunction gen L7-7\nfunction legacy L8-8\nfunction default L10-10\n",
    );
}

#[test]
fn python() {
    let src = r#""""Module doc."""
import os

MAX_SIZE = 10
cache = {}

@dataclass
class Point:
    x: int = 0

    def norm(self) -> float:
        def helper():
            pass
        return 0.0

    @staticmethod
    def origin():
        return Point()

    class Meta:
        pass

async def main():
    pass

if __name__ == "__main__":
    main()
"#;
    let o = check(
        Language::Python,
        src,
        r#"
const MAX_SIZE L4-4
variable cache L5-5
class Point L7-21
  method norm L11-14
  method origin L16-18
  class Meta L20-21
function main L23-24
"#,
    );
    let point = &o.symbols[2];
    assert_eq!(point.signature, "class Point:", "the decorator is in the range, not the signature");
    assert_eq!(o.symbols[3].signature, "async def main():");
}

#[test]
fn go() {
    let src = r#"package store

import "fmt"

const (
	A = 1
	B = 2
)

var Default = New()

type Store struct {
	items []string
}

type Reader interface {
	Read(p []byte) (int, error)
}

type ID = string

func New() *Store {
	return &Store{}
}

func (s *Store) Add(x string) {
	fmt.Println(x)
}
"#;
    check(
        Language::Go,
        src,
        r#"
const A L6-6
const B L7-7
variable Default L10-10
struct Store L12-14
interface Reader L16-18
  method Read L17-17
type ID L20-20
function New L22-24
method Store.Add L26-28
"#,
    );
}

#[test]
fn rust() {
    let src = r#"use std::fmt;

pub const LIMIT: usize = 4;
static NAME: &str = "x";

/// A point.
#[derive(Debug)]
pub struct Point { x: i32 }

pub enum Shape { Circle, Square }

pub trait Area {
    type Unit;
    fn area(&self) -> f64;
    fn double(&self) -> f64 { self.area() * 2.0 }
}

impl Point {
    pub fn new() -> Self { Point { x: 0 } }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }
}

mod inner {
    pub fn helper() {}
}

macro_rules! square { ($x:expr) => { $x * $x }; }

type Alias = Point;

fn main() {}
"#;
    check(
        Language::Rust,
        src,
        r#"
const LIMIT L3-3
variable NAME L4-4
struct Point L8-8
enum Shape L10-10
trait Area L12-16
  type Unit L13-13
  method area L14-14
  method double L15-15
impl Point L18-20
  method new L19-19
impl fmt::Display for Point L22-24
  method fmt L23-23
module inner L26-28
  function helper L27-27
macro square L30-30
type Alias L32-32
function main L34-34
"#,
    );
}

#[test]
fn java() {
    let src = r#"package com.example;

import java.util.List;

public class Service {
    public static final int MAX = 5;
    private final List<String> items, others;

    public Service() {}

    @Override
    public String toString() {
        return "";
    }

    interface Listener {
        void on(String e);
    }

    enum Mode {
        A, B;
        Mode next() { return A; }
    }
}

record Pair(int a, int b) {}
"#;
    check(
        Language::Java,
        src,
        r#"
class Service L5-24
  const MAX L6-6
  field items L7-7
  field others L7-7
  constructor Service L9-9
  method toString L11-14
  interface Listener L16-18
    method on L17-17
  enum Mode L20-23
    method next L22-22
class Pair L26-26
"#,
    );
}

#[test]
fn c() {
    let src = r#"#ifndef STORE_H
#define STORE_H
#include <stdio.h>

#define MAX(a, b) ((a) > (b) ? (a) : (b))

struct node {
    int value;
    struct node *next;
};

typedef struct {
    int x;
} point_t;

typedef unsigned long size;

enum color { RED, GREEN };

int count = 0;

int add(int a, int b);

static int *find(struct node *n, int v) {
    return 0;
}

#endif
"#;
    check(
        Language::C,
        src,
        r#"
macro STORE_H L2-2
macro MAX L5-5
struct node L7-10
struct point_t L12-14
type size L16-16
enum color L18-18
variable count L20-20
function add L22-22
function find L24-26
"#,
    );
}

#[test]
fn cpp() {
    let src = r#"#pragma once
namespace app {

class Widget : public Base {
public:
    Widget();
    ~Widget();
    void draw() const;
    int size() const { return n; }
private:
    int n;
};

template <typename T>
T max(T a, T b) { return a > b ? a : b; }

using Id = int;

}

void app::Widget::draw() const {}
"#;
    check(
        Language::Cpp,
        src,
        r#"
module app L2-19
  class Widget L4-12
    method Widget L6-6
    method ~Widget L7-7
    method draw L8-8
    method size L9-9
    field n L11-11
  function max L14-15
  type Id L17-17
method app::Widget::draw L21-21
"#,
    );
}

#[test]
fn languages_by_path_and_name() {
    assert_eq!(Language::from_path("ctx://resources/a/b.tsx"), Some(Language::Tsx));
    assert_eq!(Language::from_path("src/x.MTS"), Some(Language::TypeScript));
    assert_eq!(Language::from_path("lib.rs"), Some(Language::Rust));
    assert_eq!(Language::from_path("a.h"), Some(Language::Cpp));
    assert_eq!(Language::from_path("README.md"), None);
    assert_eq!(Language::from_path("Makefile"), None);
    assert_eq!(Language::from_path("dir.ts/file"), None);
    assert_eq!(Language::from_name("C++"), Some(Language::Cpp));
    assert_eq!(Language::from_name("py"), Some(Language::Python));
    assert_eq!(Language::from_name("cobol"), None);
    for l in Language::ALL {
        assert_eq!(Language::from_name(l.name()), Some(l));
    }
}

#[test]
fn broken_and_empty_sources_still_outline() {
    let o = outline("", Language::Python).unwrap();
    assert_eq!((o.line_count, o.symbols.len()), (0, 0));
    let o = outline("def ok():\n    pass\n\ndef broken(:\n", Language::Python).unwrap();
    assert!(o.has_errors);
    assert_eq!(o.symbols[0].name, "ok");
    assert_eq!(line_count("a\nb"), 2);
    assert_eq!(line_count("a\nb\n"), 2);
}

#[test]
fn oversized_sources_are_refused() {
    let big = "x".repeat(MAX_SOURCE_BYTES + 1);
    assert!(matches!(outline(&big, Language::JavaScript), Err(OutlineError::TooLarge { .. })));
}

#[test]
fn signatures_are_cut_on_a_character_boundary() {
    let src = format!("const s = \"{}\";\n", "é".repeat(500));
    let o = outline(&src, Language::JavaScript).unwrap();
    assert_eq!(o.symbols[0].signature.chars().count(), MAX_SIGNATURE_CHARS);
}

#[test]
fn many_files_keep_their_order_on_several_threads() {
    let inputs: Vec<(String, Language)> = (0..40)
        .map(|i| if i % 2 == 0 { (format!("def f{i}():\n    pass\n"), Language::Python) } else { (format!("function g{i}() {{}}\n"), Language::JavaScript) })
        .collect();
    for threads in [1, 2, 4] {
        let out = outline_many(&inputs, threads);
        assert_eq!(out.len(), 40);
        for (i, r) in out.iter().enumerate() {
            let name = &r.as_ref().unwrap().symbols[0].name;
            assert_eq!(name, &if i % 2 == 0 { format!("f{i}") } else { format!("g{i}") });
        }
    }
    assert!(outline_many::<String>(&[], 2).is_empty());
}

/// Masking must never change an outline: every TypeScript and JavaScript file of this repository
/// (and of a few npm packages when installed) outlines the same masked and whole.
#[test]
fn masked_outlines_equal_whole_ones_on_real_code() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let mut files = Vec::new();
    let mut stack: Vec<std::path::PathBuf> = ["runtime", "plugins", "test", "bench", "scripts", "node_modules/vitest/dist", "node_modules/typescript/lib", "node_modules/tinybench/dist", "node_modules/yaml/dist"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Some(lang) = p.to_str().and_then(Language::from_path) {
                if matches!(lang, Language::TypeScript | Language::JavaScript) && e.metadata().map_or(false, |m| m.len() < 4 * 1024 * 1024) {
                    files.push((p, lang));
                }
            }
        }
    }
    let mut compared = 0;
    let mut masked_ok = 0;
    for (p, lang) in &files {
        let Ok(src) = std::fs::read_to_string(p) else { continue };
        let whole = outline_with(&src, *lang, false).unwrap();
        let masked = outline_with(&src, *lang, true).unwrap();
        assert_eq!((masked.line_count, &masked.symbols), (whole.line_count, &whole.symbols), "{}", p.display());
        // Errors inside bodies go unseen when bodies are blanked; errors outside them never do.
        assert!(!masked.has_errors || whole.has_errors, "{}", p.display());
        compared += 1;
        let b = src.as_bytes();
        let ranged = crate::mask::body_intervals(b).and_then(|iv| parse_ranges(b, *lang, &crate::mask::included_ranges(b, &iv)));
        if ranged.is_some_and(|t| !t.root_node().has_error()) {
            masked_ok += 1;
        }
    }
    eprintln!("masked == whole on {compared} files ({masked_ok} outlined with bodies left out, the rest parsed whole)");
}

/// `CTX_OUTLINE_SAMPLE=<file.ts> cargo test --release -p ctx-outline mask_timing -- --ignored --nocapture`
#[test]
#[ignore]
fn mask_timing() {
    let path = std::env::var("CTX_OUTLINE_SAMPLE").expect("CTX_OUTLINE_SAMPLE");
    let src = std::fs::read_to_string(path).unwrap();
    let m = crate::mask::mask_bodies(src.as_bytes()).expect("masked");
    let blank = m.iter().filter(|&&c| c == b' ').count() as f64 / m.len() as f64;
    let t = |f: &dyn Fn()| {
        let mut v: Vec<f64> = (0..60).map(|_| { let s = std::time::Instant::now(); f(); s.elapsed().as_secs_f64() * 1e3 }).collect();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[0] // the minimum: the machine is shared, and the fastest run is the least disturbed
    };
    let masked_err = parse(&m, Language::TypeScript).unwrap().root_node().has_error();
    let iv = crate::mask::body_intervals(src.as_bytes()).unwrap();
    let ranges = crate::mask::included_ranges(src.as_bytes(), &iv);
    eprintln!("{} ranges; ranged parse has_error {}", ranges.len(), crate::parse_ranges(src.as_bytes(), Language::TypeScript, &ranges).unwrap().root_node().has_error());
    let tree = parse(src.as_bytes(), Language::TypeScript).unwrap();
    eprintln!("walk alone {:.2} ms", t(&|| {
        let w = crate::languages::Walker { src: src.as_bytes(), lang: Language::TypeScript };
        let mut out = Vec::new();
        w.collect(tree.root_node(), crate::languages::Scope::Module, &mut out);
    }));
    eprintln!("ranged parse {:.2} ms", t(&|| { crate::parse_ranges(src.as_bytes(), Language::TypeScript, &ranges); }));
    eprintln!("blank share {:.0}%, masked parse has_error {masked_err}", blank * 100.0);
    eprintln!("mask {:.2} ms, parse masked {:.2} ms, parse whole {:.2} ms, outline {:.2} ms, outline whole {:.2} ms",
        t(&|| { crate::mask::mask_bodies(src.as_bytes()); }),
        t(&|| { parse(&m, Language::TypeScript); }),
        t(&|| { parse(src.as_bytes(), Language::TypeScript); }),
        t(&|| { outline(&src, Language::TypeScript).unwrap(); }),
        t(&|| { outline_with(&src, Language::TypeScript, false).unwrap(); }));
}

#[test]
fn javascript_with_jsx_is_parsed_whole() {
    let src = "export function App() {\n  return <p>it's {'}'} here</p>;\n}\nexport const x = 1;\n";
    check(Language::JavaScript, src, "function App L1-3\nconst x L4-4\n");
    // Without JSX, a regex holding a brace and a template holding an object stay inside their body.
    let src = "function f() {\n  const r = /[{]}/;\n  return `${ {a: '}'}.a }`;\n}\nclass K { m() { return 1 / 2 / 3; } }\n";
    check(Language::JavaScript, src, "function f L1-4\nclass K L5-5\n  method m L5-5\n");
}
