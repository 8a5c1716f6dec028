//! Which grammar nodes are symbols, per language. Each grammar names its declarations
//! differently; the walker maps them onto one small vocabulary of kinds.
use tree_sitter::Node;

use crate::{first_line, lines_of, Symbol};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    TypeScript,
    Tsx,
    JavaScript,
    Python,
    Go,
    Rust,
    Java,
    C,
    Cpp,
}

impl Language {
    pub const ALL: [Language; 9] = [
        Language::TypeScript,
        Language::Tsx,
        Language::JavaScript,
        Language::Python,
        Language::Go,
        Language::Rust,
        Language::Java,
        Language::C,
        Language::Cpp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::JavaScript => "javascript",
            Language::Python => "python",
            Language::Go => "go",
            Language::Rust => "rust",
            Language::Java => "java",
            Language::C => "c",
            Language::Cpp => "cpp",
        }
    }

    /// A language by its name or a common alias (`ts`, `js`, `jsx`, `py`, `golang`, `rs`, `c++`), any case.
    pub fn from_name(name: &str) -> Option<Language> {
        Some(match name.trim().to_ascii_lowercase().as_str() {
            "typescript" | "ts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "javascript" | "js" | "jsx" | "node" => Language::JavaScript,
            "python" | "py" => Language::Python,
            "go" | "golang" => Language::Go,
            "rust" | "rs" => Language::Rust,
            "java" => Language::Java,
            "c" => Language::C,
            "cpp" | "c++" | "cxx" | "cc" => Language::Cpp,
            _ => return None,
        })
    }

    /// The language of a file by its extension (`.h` is read as C++, which parses C headers too
    /// and also C++ ones). `None` for any other file.
    pub fn from_path(path: &str) -> Option<Language> {
        let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let (_, ext) = file.rsplit_once('.')?;
        Some(match ext.to_ascii_lowercase().as_str() {
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "py" | "pyi" | "pyw" => Language::Python,
            "go" => Language::Go,
            "rs" => Language::Rust,
            "java" => Language::Java,
            "c" => Language::C,
            "h" | "hh" | "hpp" | "hxx" | "cc" | "cpp" | "cxx" | "c++" | "ipp" | "inl" => Language::Cpp,
            _ => return None,
        })
    }

    pub(crate) fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        }
    }
}

/// Where a declaration sits: decides e.g. function vs method, and whether variables count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// File level, or the body of a namespace/module.
    Module,
    /// The body of a class, interface, struct, trait or impl.
    Member,
}

pub(crate) struct Walker<'a> {
    pub src: &'a [u8],
    pub lang: Language,
}

impl<'a> Walker<'a> {
    fn text(&self, node: Node) -> &'a str {
        std::str::from_utf8(&self.src[node.start_byte()..node.end_byte()]).unwrap_or("")
    }

    fn field_text(&self, node: Node, field: &str) -> Option<&'a str> {
        node.child_by_field_name(field).map(|n| self.text(n))
    }

    /// A symbol for `decl` spanning `range` (a wrapper such as a decorated definition, or `decl`).
    fn symbol(&self, kind: &'static str, name: impl Into<String>, decl: Node, range: Node) -> Symbol {
        let (start_line, end_line) = lines_of(range);
        Symbol { kind, name: name.into(), start_line, end_line, signature: first_line(self.src, decl), children: Vec::new() }
    }

    /// Adds the symbols among `parent`'s named children to `out`.
    pub(crate) fn collect(&self, parent: Node, scope: Scope, out: &mut Vec<Symbol>) {
        let mut cursor = parent.walk();
        if !cursor.goto_first_child() {
            return;
        }
        loop {
            let node = cursor.node();
            if node.is_named() {
                self.visit(node, node, scope, out);
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }

    /// `range` is the node whose lines the symbol covers (it differs from `node` for wrappers).
    fn visit(&self, node: Node, range: Node, scope: Scope, out: &mut Vec<Symbol>) {
        match self.lang {
            Language::TypeScript | Language::Tsx | Language::JavaScript => self.visit_js(node, range, scope, out),
            Language::Python => self.visit_python(node, range, scope, out),
            Language::Go => self.visit_go(node, out),
            Language::Rust => self.visit_rust(node, scope, out),
            Language::Java => self.visit_java(node, scope, out),
            Language::C | Language::Cpp => self.visit_c(node, range, scope, out),
        }
    }

    /// A container symbol whose `body` field holds members.
    fn container(&self, kind: &'static str, name: impl Into<String>, node: Node, range: Node, inner: Scope) -> Symbol {
        let mut sym = self.symbol(kind, name, node, range);
        if let Some(body) = node.child_by_field_name("body") {
            self.collect(body, inner, &mut sym.children);
        }
        sym
    }

    // ---- TypeScript, TSX, JavaScript ------------------------------------------------------------

    fn visit_js(&self, node: Node, range: Node, scope: Scope, out: &mut Vec<Symbol>) {
        let named = |n: Node| self.field_text(n, "name").map(str::to_string);
        match (scope, node.kind()) {
            (Scope::Module, "export_statement") => {
                if let Some(decl) = node.child_by_field_name("declaration") {
                    self.visit_js(decl, node, scope, out);
                } else if let Some(value) = node.child_by_field_name("value") {
                    // `export default function () {}` / `export default class {}`
                    match value.kind() {
                        "function_expression" | "function" | "arrow_function" => out.push(self.symbol("function", named(value).unwrap_or_else(|| "default".into()), node, node)),
                        "class" => out.push(self.container("class", named(value).unwrap_or_else(|| "default".into()), value, node, Scope::Member)),
                        _ => {}
                    }
                }
            }
            (Scope::Module, "ambient_declaration") => self.collect(node, scope, out),
            (Scope::Module, "expression_statement") => {
                if let Some(inner) = node.named_child(0).filter(|n| n.kind() == "internal_module") {
                    self.visit_js(inner, range, scope, out);
                }
            }
            (Scope::Module, "internal_module" | "module") => {
                let name = named(node).unwrap_or_default();
                out.push(self.container("module", name, node, range, Scope::Module));
            }
            (Scope::Module, "class_declaration" | "abstract_class_declaration" | "class") => {
                out.push(self.container("class", named(node).unwrap_or_else(|| "default".into()), node, range, Scope::Member));
            }
            (Scope::Module, "interface_declaration") => {
                out.push(self.container("interface", named(node).unwrap_or_default(), node, range, Scope::Member));
            }
            (Scope::Module, "type_alias_declaration") => out.push(self.symbol("type", named(node).unwrap_or_default(), node, range)),
            (Scope::Module, "enum_declaration") => out.push(self.symbol("enum", named(node).unwrap_or_default(), node, range)),
            (Scope::Module, "function_declaration" | "generator_function_declaration" | "function_signature") => {
                out.push(self.symbol("function", named(node).unwrap_or_else(|| "default".into()), node, range));
            }
            (Scope::Module, "lexical_declaration" | "variable_declaration") => {
                let is_const = node.child(0).is_some_and(|k| k.kind() == "const");
                let declarators: Vec<Node> = {
                    let mut c = node.walk();
                    node.named_children(&mut c).filter(|n| n.kind() == "variable_declarator").collect()
                };
                let single = declarators.len() == 1;
                for d in declarators {
                    let Some(name_node) = d.child_by_field_name("name") else { continue };
                    if name_node.kind() != "identifier" {
                        continue; // destructuring: no single name to show
                    }
                    let name = self.text(name_node);
                    let span = if single { range } else { d };
                    let value = d.child_by_field_name("value");
                    match value.map(|v| v.kind()) {
                        Some("arrow_function" | "function_expression" | "function" | "generator_function") => out.push(self.symbol("function", name, node, span)),
                        Some("class") => {
                            let mut sym = self.symbol("class", name, node, span);
                            if let Some(body) = value.and_then(|v| v.child_by_field_name("body")) {
                                self.collect(body, Scope::Member, &mut sym.children);
                            }
                            out.push(sym);
                        }
                        _ => out.push(self.symbol(if is_const { "const" } else { "variable" }, name, node, span)),
                    }
                }
            }
            (Scope::Member, "method_definition") => {
                let name = named(node).unwrap_or_default();
                let kind = if name == "constructor" { "constructor" } else { "method" };
                out.push(self.symbol(kind, name, node, range));
            }
            (Scope::Member, "abstract_method_signature" | "method_signature") => out.push(self.symbol("method", named(node).unwrap_or_default(), node, range)),
            (Scope::Member, "public_field_definition" | "field_definition" | "property_signature") => {
                let name = named(node).or_else(|| self.field_text(node, "property").map(str::to_string)).unwrap_or_default();
                let is_fn = node.child_by_field_name("value").is_some_and(|v| matches!(v.kind(), "arrow_function" | "function_expression" | "function"));
                out.push(self.symbol(if is_fn { "method" } else { "property" }, name, node, range));
            }
            _ => {}
        }
    }

    // ---- Python ---------------------------------------------------------------------------------

    fn visit_python(&self, node: Node, range: Node, scope: Scope, out: &mut Vec<Symbol>) {
        match node.kind() {
            "decorated_definition" => {
                if let Some(def) = node.child_by_field_name("definition") {
                    self.visit_python(def, node, scope, out);
                }
            }
            "class_definition" => {
                let name = self.field_text(node, "name").unwrap_or_default();
                out.push(self.container("class", name, node, range, Scope::Member));
            }
            "function_definition" => {
                let name = self.field_text(node, "name").unwrap_or_default();
                let kind = if scope == Scope::Member { "method" } else { "function" };
                out.push(self.symbol(kind, name, node, range));
            }
            "expression_statement" if scope == Scope::Module => {
                let Some(assign) = node.named_child(0).filter(|n| n.kind() == "assignment") else { return };
                let Some(left) = assign.child_by_field_name("left").filter(|n| n.kind() == "identifier") else { return };
                let name = self.text(left);
                // Module-level UPPER_CASE names are constants by convention.
                let is_const = name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(|c| c.is_ascii_lowercase());
                out.push(self.symbol(if is_const { "const" } else { "variable" }, name, node, range));
            }
            _ => {}
        }
    }

    // ---- Go -------------------------------------------------------------------------------------

    fn visit_go(&self, node: Node, out: &mut Vec<Symbol>) {
        match node.kind() {
            "function_declaration" => out.push(self.symbol("function", self.field_text(node, "name").unwrap_or_default(), node, node)),
            "method_declaration" => {
                let name = self.field_text(node, "name").unwrap_or_default();
                // Shown as Receiver.Method, the way Go code refers to it.
                let recv = node.child_by_field_name("receiver").and_then(|r| self.go_receiver(r));
                let full = match recv {
                    Some(r) => format!("{r}.{name}"),
                    None => name.to_string(),
                };
                out.push(self.symbol("method", full, node, node));
            }
            "type_declaration" => {
                let single = node.named_child_count() == 1;
                let mut c = node.walk();
                for spec in node.named_children(&mut c) {
                    if !matches!(spec.kind(), "type_spec" | "type_alias") {
                        continue;
                    }
                    let name = self.field_text(spec, "name").unwrap_or_default();
                    let span = if single { node } else { spec };
                    let ty = spec.child_by_field_name("type");
                    let kind = match ty.map(|t| t.kind()) {
                        Some("struct_type") => "struct",
                        Some("interface_type") => "interface",
                        _ => "type",
                    };
                    let mut sym = self.symbol(kind, name, if single { node } else { spec }, span);
                    if let Some(t) = ty.filter(|t| t.kind() == "interface_type") {
                        let mut c2 = t.walk();
                        for m in t.named_children(&mut c2).filter(|m| m.kind() == "method_elem") {
                            sym.children.push(self.symbol("method", self.field_text(m, "name").unwrap_or_default(), m, m));
                        }
                    }
                    out.push(sym);
                }
            }
            "const_declaration" | "var_declaration" => {
                let kind = if node.kind() == "const_declaration" { "const" } else { "variable" };
                let mut specs = Vec::new();
                let mut c = node.walk();
                for child in node.named_children(&mut c) {
                    match child.kind() {
                        "const_spec" | "var_spec" => specs.push(child),
                        "var_spec_list" => {
                            let mut c2 = child.walk();
                            specs.extend(child.named_children(&mut c2).filter(|s| s.kind() == "var_spec"));
                        }
                        _ => {}
                    }
                }
                let single = specs.len() == 1;
                for spec in specs {
                    let mut c2 = spec.walk();
                    for name in spec.children_by_field_name("name", &mut c2) {
                        out.push(self.symbol(kind, self.text(name), if single { node } else { spec }, if single { node } else { spec }));
                    }
                }
            }
            _ => {}
        }
    }

    fn go_receiver(&self, params: Node) -> Option<String> {
        let mut c = params.walk();
        let decl = params.named_children(&mut c).find(|n| n.kind() == "parameter_declaration")?;
        let mut ty = decl.child_by_field_name("type")?;
        loop {
            match ty.kind() {
                "pointer_type" => ty = ty.named_child(0)?,
                "generic_type" => ty = ty.child_by_field_name("type")?,
                _ => return Some(self.text(ty).to_string()),
            }
        }
    }

    // ---- Rust -----------------------------------------------------------------------------------

    fn visit_rust(&self, node: Node, scope: Scope, out: &mut Vec<Symbol>) {
        let name = || self.field_text(node, "name").unwrap_or_default().to_string();
        match node.kind() {
            "function_item" | "function_signature_item" => out.push(self.symbol(if scope == Scope::Member { "method" } else { "function" }, name(), node, node)),
            "struct_item" | "union_item" => out.push(self.symbol("struct", name(), node, node)),
            "enum_item" => out.push(self.symbol("enum", name(), node, node)),
            "type_item" | "associated_type" => out.push(self.symbol("type", name(), node, node)),
            "const_item" => out.push(self.symbol("const", name(), node, node)),
            "static_item" => out.push(self.symbol("variable", name(), node, node)),
            "macro_definition" => out.push(self.symbol("macro", name(), node, node)),
            "trait_item" => out.push(self.container("trait", name(), node, node, Scope::Member)),
            "mod_item" => out.push(self.container("module", name(), node, node, Scope::Module)),
            "impl_item" => {
                let ty = self.field_text(node, "type").unwrap_or_default();
                let label = match self.field_text(node, "trait") {
                    Some(t) => format!("{t} for {ty}"),
                    None => ty.to_string(),
                };
                out.push(self.container("impl", label, node, node, Scope::Member));
            }
            _ => {}
        }
    }

    // ---- Java -----------------------------------------------------------------------------------

    fn visit_java(&self, node: Node, scope: Scope, out: &mut Vec<Symbol>) {
        let name = || self.field_text(node, "name").unwrap_or_default().to_string();
        match node.kind() {
            "class_declaration" | "record_declaration" => out.push(self.container("class", name(), node, node, Scope::Member)),
            "interface_declaration" | "annotation_type_declaration" => out.push(self.container("interface", name(), node, node, Scope::Member)),
            "enum_declaration" => out.push(self.container("enum", name(), node, node, Scope::Member)),
            // Members of an enum follow its constants in this wrapper.
            "enum_body_declarations" if scope == Scope::Member => self.collect(node, scope, out),
            "method_declaration" | "annotation_type_element_declaration" => out.push(self.symbol("method", name(), node, node)),
            "constructor_declaration" | "compact_constructor_declaration" => out.push(self.symbol("constructor", name(), node, node)),
            "field_declaration" | "constant_declaration" if scope == Scope::Member => {
                let is_const = node.kind() == "constant_declaration" || {
                    let mods = node.named_child(0).filter(|m| m.kind() == "modifiers").map(|m| self.text(m)).unwrap_or("");
                    mods.contains("static") && mods.contains("final")
                };
                let mut c = node.walk();
                let decls: Vec<Node> = node.children_by_field_name("declarator", &mut c).collect();
                let single = decls.len() == 1;
                for d in decls {
                    if let Some(n) = self.field_text(d, "name") {
                        out.push(self.symbol(if is_const { "const" } else { "field" }, n, node, if single { node } else { d }));
                    }
                }
            }
            _ => {}
        }
    }

    // ---- C and C++ ------------------------------------------------------------------------------

    /// The declared name inside a (possibly nested) declarator, and whether it declares a function.
    fn c_declarator(&self, mut d: Node) -> Option<(&'a str, bool)> {
        let mut is_fn = false;
        loop {
            match d.kind() {
                "function_declarator" => {
                    is_fn = true;
                    d = d.child_by_field_name("declarator")?;
                }
                "pointer_declarator" | "reference_declarator" | "init_declarator" | "array_declarator" | "parenthesized_declarator" | "attributed_declarator" => {
                    d = d.child_by_field_name("declarator").or_else(|| d.named_child(d.named_child_count().saturating_sub(1)))?;
                }
                "identifier" | "field_identifier" | "type_identifier" | "qualified_identifier" | "destructor_name" | "operator_name" | "template_function" | "primitive_type" => {
                    return Some((self.text(d), is_fn));
                }
                _ => return None,
            }
        }
    }

    /// `struct/union/enum/class X { ... }` with a body, as a symbol (None for a bare reference).
    fn c_type_body(&self, spec: Node, range: Node, name_override: Option<&str>) -> Option<Symbol> {
        let kind = match spec.kind() {
            "struct_specifier" | "union_specifier" => "struct",
            "enum_specifier" => "enum",
            "class_specifier" => "class",
            _ => return None,
        };
        let body = spec.child_by_field_name("body")?;
        let name = name_override.map(str::to_string).or_else(|| self.field_text(spec, "name").map(str::to_string)).unwrap_or_else(|| "(anonymous)".into());
        let mut sym = self.symbol(kind, name, range, range);
        if self.lang == Language::Cpp && kind != "enum" {
            self.collect(body, Scope::Member, &mut sym.children);
        }
        Some(sym)
    }

    fn visit_c(&self, node: Node, range: Node, scope: Scope, out: &mut Vec<Symbol>) {
        let member = scope == Scope::Member;
        match node.kind() {
            // Header guards and conditional blocks hold most of a header's declarations.
            "preproc_ifdef" | "preproc_if" | "preproc_else" | "preproc_elif" | "preproc_elifdef" | "linkage_specification" | "declaration_list" => {
                if node.kind() == "linkage_specification" {
                    if let Some(body) = node.child_by_field_name("body") {
                        self.visit_c(body, body, scope, out);
                    }
                } else {
                    self.collect(node, scope, out);
                }
            }
            "template_declaration" => {
                let mut c = node.walk();
                let inner: Vec<Node> = node.named_children(&mut c).filter(|n| n.kind() != "template_parameter_list").collect();
                for n in inner {
                    self.visit_c(n, node, scope, out);
                }
            }
            "preproc_def" | "preproc_function_def" => out.push(self.symbol("macro", self.field_text(node, "name").unwrap_or_default(), node, node)),
            "function_definition" => {
                if let Some((name, _)) = node.child_by_field_name("declarator").and_then(|d| self.c_declarator(d)) {
                    let kind = if member || name.contains("::") { "method" } else { "function" };
                    out.push(self.symbol(kind, name, node, range));
                }
            }
            "namespace_definition" => {
                let name = self.field_text(node, "name").unwrap_or("(anonymous)");
                out.push(self.container("module", name, node, range, Scope::Module));
            }
            "alias_declaration" => out.push(self.symbol("type", self.field_text(node, "name").unwrap_or_default(), node, range)),
            "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => out.extend(self.c_type_body(node, range, None)),
            "type_definition" => {
                let mut c = node.walk();
                let names: Vec<&str> = node.children_by_field_name("declarator", &mut c).filter_map(|d| self.c_declarator(d)).map(|(n, _)| n).collect();
                let Some(first) = names.first().copied() else { return };
                let ty = node.child_by_field_name("type");
                match ty.and_then(|t| self.c_type_body(t, range, Some(first))) {
                    Some(sym) => out.push(sym),
                    None => out.push(self.symbol("type", first, node, range)),
                }
            }
            "declaration" | "field_declaration" => {
                if let Some(sym) = node.child_by_field_name("type").and_then(|t| self.c_type_body(t, range, None)) {
                    out.push(sym);
                }
                let mut c = node.walk();
                let decls: Vec<Node> = node.children_by_field_name("declarator", &mut c).collect();
                for d in decls {
                    let Some((name, is_fn)) = self.c_declarator(d) else { continue };
                    let kind = match (is_fn, member) {
                        (true, true) => "method",
                        (true, false) => "function",
                        (false, true) => "field",
                        (false, false) => "variable",
                    };
                    out.push(self.symbol(kind, name, node, range));
                }
            }
            _ => {}
        }
    }
}
