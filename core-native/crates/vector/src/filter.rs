//! Filters: the per-account bitmap indexes kept next to the records and the evaluation of a
//! `Filter` over them, so a query only ever visits its own account's records.
use std::collections::HashMap;

use roaring::RoaringBitmap;

use crate::{format_id, key, ContextType, Error, Filter, Rec, RecordAttrs, Result, TimeField, VectorIndex, NONE};

/// Where the path part of a `ctx://` uri starts.
pub(crate) fn body_start(u: &str) -> usize {
    u.find("://").map(|i| i + 3).unwrap_or(0)
}

/// `u` without trailing slashes (keeping `scheme://`).
pub(crate) fn trim_uri(u: &str) -> &str {
    let b = body_start(u);
    let t = u.trim_end_matches('/');
    if t.len() < b {
        &u[..b]
    } else {
        t
    }
}

pub(crate) fn parent_of(u: &str) -> Option<&str> {
    let b = body_start(u);
    u[b..].rfind('/').map(|i| &u[..b + i])
}

pub(crate) fn is_root(u: &str) -> bool {
    u.len() <= body_start(u)
}


impl VectorIndex {
    pub(crate) fn prefix_keys(&self, uri: &str, level: u8) -> Vec<String> {
        let u = trim_uri(uri);
        let mut out = Vec::new();
        let mut cur = if level < 2 { Some(u) } else { parent_of(u) };
        while let Some(c) = cur {
            if is_root(c) {
                break;
            }
            out.push(c.to_string());
            cur = parent_of(c);
        }
        out
    }

    pub(crate) fn index_rec(&mut self, r: u32, rec: &Rec) {
        let a = rec.account;
        self.by_account.entry(a).or_default().insert(r);
        self.by_owner.entry(key(a, rec.owner)).or_default().insert(r);
        self.by_ctype.entry(key(a, rec.ctype as u32)).or_default().insert(r);
        self.by_level.entry(key(a, rec.level as u32)).or_default().insert(r);
        for &t in rec.tags.iter() {
            self.by_tag.entry(key(a, t)).or_default().insert(r);
        }
        if rec.peer != NONE {
            self.by_peer.entry(key(a, rec.peer)).or_default().insert(r);
        }
        let uri = self.strings.name(rec.uri).to_string();
        for p in self.prefix_keys(&uri, rec.level) {
            let pid = self.strings.intern(&p);
            self.by_prefix.entry(key(a, pid)).or_default().insert(r);
        }
        if rec.level >= 2 {
            let uid = self.strings.intern(trim_uri(&uri));
            self.by_leaf_uri.entry(key(a, uid)).or_default().push(r);
        }
    }

    pub(crate) fn unindex_rec(&mut self, r: u32, rec: &Rec) {
        fn rm(m: &mut HashMap<u64, RoaringBitmap>, k: u64, r: u32) {
            if let Some(b) = m.get_mut(&k) {
                b.remove(r);
                if b.is_empty() {
                    m.remove(&k);
                }
            }
        }
        let a = rec.account;
        if let Some(b) = self.by_account.get_mut(&a) {
            b.remove(r);
            if b.is_empty() {
                self.by_account.remove(&a);
            }
        }
        rm(&mut self.by_owner, key(a, rec.owner), r);
        rm(&mut self.by_ctype, key(a, rec.ctype as u32), r);
        rm(&mut self.by_level, key(a, rec.level as u32), r);
        for &t in rec.tags.iter() {
            rm(&mut self.by_tag, key(a, t), r);
        }
        if rec.peer != NONE {
            rm(&mut self.by_peer, key(a, rec.peer), r);
        }
        let uri = self.strings.name(rec.uri).to_string();
        for p in self.prefix_keys(&uri, rec.level) {
            if let Some(pid) = self.strings.get(&p) {
                rm(&mut self.by_prefix, key(a, pid), r);
            }
        }
        if rec.level >= 2 {
            if let Some(uid) = self.strings.get(trim_uri(&uri)) {
                let k = key(a, uid);
                if let Some(v) = self.by_leaf_uri.get_mut(&k) {
                    v.retain(|x| *x != r);
                    if v.is_empty() {
                        self.by_leaf_uri.remove(&k);
                    }
                }
            }
        }
    }

    pub(crate) fn make_rec(&mut self, id: u128, a: &RecordAttrs) -> Result<Rec> {
        if a.account.is_empty() {
            return Err(Error::InvalidArgument("attrs.account must not be empty".into()));
        }
        if a.level > 2 {
            return Err(Error::InvalidArgument(format!("level must be 0, 1 or 2, got {}", a.level)));
        }
        if a.tags.len() > 1024 {
            return Err(Error::InvalidArgument("at most 1024 tags per record".into()));
        }
        let mut tags: Vec<u32> = a.tags.iter().map(|t| self.strings.intern(t)).collect();
        tags.sort_unstable();
        tags.dedup();
        Ok(Rec {
            id,
            slot: NONE,
            account: self.strings.intern(&a.account),
            owner: self.strings.intern(&a.owner_space),
            uri: self.strings.intern(trim_uri(&a.uri)),
            parent: self.strings.intern(trim_uri(&a.parent_uri)),
            ctype: a.context_type as u8,
            level: a.level,
            tags: tags.into_boxed_slice(),
            created: a.created_at,
            updated: a.updated_at,
            peer: match &a.peer {
                Some(p) if !p.is_empty() => self.strings.intern(p),
                _ => NONE,
            },
            doc: NONE,
        })
    }

    pub(crate) fn attrs_of(&self, rec: &Rec) -> RecordAttrs {
        RecordAttrs {
            account: self.strings.name(rec.account).to_string(),
            owner_space: self.strings.name(rec.owner).to_string(),
            uri: self.strings.name(rec.uri).to_string(),
            parent_uri: self.strings.name(rec.parent).to_string(),
            context_type: ContextType::from_u8(rec.ctype),
            level: rec.level,
            tags: rec.tags.iter().map(|t| self.strings.name(*t).to_string()).collect(),
            created_at: rec.created,
            updated_at: rec.updated,
            peer: if rec.peer == NONE { None } else { Some(self.strings.name(rec.peer).to_string()) },
        }
    }

    // ---- filters ------------------------------------------------------------------------------

    /// Records at or below `prefix` in account `a` (the prefix itself matches as a directory record
    /// or as a leaf).
    pub(crate) fn prefix_bitmap(&self, a: u32, prefix: &str) -> RoaringBitmap {
        let p = trim_uri(prefix);
        if is_root(p) {
            return self.by_account.get(&a).cloned().unwrap_or_default();
        }
        let Some(pid) = self.strings.get(p) else { return RoaringBitmap::new() };
        let mut b = self.by_prefix.get(&key(a, pid)).cloned().unwrap_or_default();
        if let Some(v) = self.by_leaf_uri.get(&key(a, pid)) {
            b.extend(v.iter().copied());
        }
        b
    }

    /// The records admitted by `f`, computed from the account's bitmaps only (other tenants'
    /// records are never visited).
    pub fn candidates(&self, f: &Filter) -> RoaringBitmap {
        let Some(a) = self.strings.get(&f.account) else { return RoaringBitmap::new() };
        let Some(base) = self.by_account.get(&a) else { return RoaringBitmap::new() };
        let mut c = base.clone();
        let union_of = |m: &HashMap<u64, RoaringBitmap>, ids: &mut dyn Iterator<Item = Option<u32>>| {
            let mut u = RoaringBitmap::new();
            for id in ids.flatten() {
                if let Some(b) = m.get(&key(a, id)) {
                    u |= b;
                }
            }
            u
        };
        if let Some(os) = &f.owner_spaces {
            c &= union_of(&self.by_owner, &mut os.iter().map(|s| self.strings.get(s)));
        }
        if let Some(ct) = &f.context_types {
            c &= union_of(&self.by_ctype, &mut ct.iter().map(|s| ContextType::parse(s).map(|t| t as u32)));
        }
        if let Some(ls) = &f.levels {
            c &= union_of(&self.by_level, &mut ls.iter().map(|l| Some(*l as u32)));
        }
        for t in &f.tags {
            match self.strings.get(t).and_then(|id| self.by_tag.get(&key(a, id))) {
                Some(b) => c &= b,
                None => return RoaringBitmap::new(),
            }
        }
        if let Some(p) = &f.peer {
            match self.strings.get(p).and_then(|id| self.by_peer.get(&key(a, id))) {
                Some(b) => c &= b,
                None => return RoaringBitmap::new(),
            }
        }
        if let Some(ps) = &f.uri_prefixes {
            let mut u = RoaringBitmap::new();
            for p in ps {
                u |= self.prefix_bitmap(a, p);
            }
            c &= u;
        }
        for p in &f.exclude_uri_prefixes {
            c -= self.prefix_bitmap(a, p);
        }
        for t in &f.exclude_tags {
            if let Some(b) = self.strings.get(t).and_then(|id| self.by_tag.get(&key(a, id))) {
                c -= b;
            }
        }
        if (f.since.is_some() || f.until.is_some()) && !c.is_empty() {
            let lo = f.since.unwrap_or(i64::MIN);
            let hi = f.until.unwrap_or(i64::MAX);
            let created = f.time_field == TimeField::CreatedAt;
            let mut within = RoaringBitmap::new();
            for r in c.iter() {
                let t = self.recs.get(r as usize).and_then(|x| x.as_ref()).map(|rec| if created { rec.created } else { rec.updated });
                if t.is_some_and(|t| t >= lo && t <= hi) {
                    // Ascending order: an append, never a search.
                    within.push(r);
                }
            }
            c = within;
        }
        c
    }

    pub fn count(&self, f: &Filter) -> u64 {
        self.candidates(f).len()
    }

    pub fn ids(&self, f: &Filter, limit: usize) -> Result<Vec<String>> {
        self.candidates(f).iter().take(limit).map(|r| Ok(format_id(self.rec(r)?.id))).collect()
    }
}
