//! Full-text search with the `simple` configuration: `tsvector` and `tsquery` (their
//! text and binary forms), `to_tsvector('simple', …)`, `plainto_tsquery('simple', …)`,
//! `@@`, and `ts_rank`/`ts_rank_cd` in PostgreSQL's float4 arithmetic (`tsrank.c`).
//! The default parser has many token types (email, url, host, file, float, version,
//! hyphenated words…); the model tokenizes only what it can verify (ASCII letters and
//! digits between plain separators) and refuses text that would take another token
//! type, rather than split it differently. Other configurations are refused too.

use crate::pg::error::{PgError, PgResult};

/// The separators the default parser reads as blank in every context the model allows.
const BLANKS: &str = ",;!?\"()[]{}*=^|#$%:'\\";
/// `MAXENTRYPOS - 1`: the highest position a lexeme records.
const POSITION_MAX: u16 = 16_383;
/// `MAXNUMPOS`: positions a lexeme keeps at most.
const POSITIONS_MAX: usize = 256;
/// Bytes a lexeme may have (PostgreSQL skips longer words with a notice).
const LEXEME_BYTES_MAX: usize = 2047;
/// The OID of the `simple` configuration (`pg_ts_config`).
pub(crate) const SIMPLE_OID: i64 = 3748;
/// D's weight, the only one the model's vectors have (`weights[0]` of tsrank.c).
const WEIGHT_D: f32 = 0.1;

/// A tsvector: lexemes in PostgreSQL's order (bytewise), each with its positions.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Tsvector {
    pub entries: Vec<(String, Vec<u16>)>,
}

/// A tsquery the model makes: its terms joined by `&` (plainto_tsquery's form).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Tsquery {
    pub terms: Vec<String>,
}

pub(crate) fn refused(what: impl std::fmt::Display) -> PgError {
    PgError::unsupported(what)
}

/// The words of `text` as the default parser and the simple dictionary make them
/// (lower-cased), in order.
fn words(text: &str) -> PgResult<Vec<String>> {
    let mut out = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, out: &mut Vec<String>| -> PgResult<()> {
        if current.is_empty() {
            return Ok(());
        }
        let bytes = current.as_bytes();
        let scientific = bytes[0].is_ascii_digit()
            && bytes
                .windows(2)
                .any(|w| matches!(w[0], b'e' | b'E') && w[1].is_ascii_digit());
        if scientific {
            return Err(refused(format!(
                "text search of \"{current}\" (the parser reads a float there)"
            )));
        }
        if current.len() > LEXEME_BYTES_MAX {
            return Err(refused("text search of a word longer than 2047 bytes"));
        }
        out.push(current.to_ascii_lowercase());
        current.clear();
        Ok(())
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            current.push(c);
        } else if c.is_ascii_whitespace() || BLANKS.contains(c) {
            flush(&mut current, &mut out)?;
        } else {
            return Err(refused(format!(
                "text search of text with {c:?} (the default parser may read another token type there)"
            )));
        }
    }
    flush(&mut current, &mut out)?;
    Ok(out)
}

/// `to_tsvector('simple', text)`.
pub(crate) fn to_tsvector(text: &str) -> PgResult<Tsvector> {
    let mut entries: Vec<(String, Vec<u16>)> = Vec::new();
    for (at, word) in words(text)?.into_iter().enumerate() {
        let position = u16::try_from(at + 1)
            .unwrap_or(POSITION_MAX)
            .min(POSITION_MAX);
        match entries.iter_mut().find(|(w, _)| *w == word) {
            Some((_, positions)) => positions.push(position),
            None => entries.push((word, vec![position])),
        }
    }
    Ok(normalise(entries))
}

/// Lexemes sorted and merged, positions sorted, deduplicated and capped.
fn normalise(mut entries: Vec<(String, Vec<u16>)>) -> Tsvector {
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut merged: Vec<(String, Vec<u16>)> = Vec::with_capacity(entries.len());
    for (word, positions) in entries {
        match merged.last_mut() {
            Some((last, kept)) if *last == word => kept.extend(positions),
            _ => merged.push((word, positions)),
        }
    }
    for (_, positions) in &mut merged {
        positions.sort_unstable();
        positions.dedup();
        positions.truncate(POSITIONS_MAX);
    }
    Tsvector { entries: merged }
}

/// `plainto_tsquery('simple', text)`; a text without words is refused (PostgreSQL
/// answers an empty query with a notice).
pub(crate) fn plainto_tsquery(text: &str) -> PgResult<Tsquery> {
    let terms = words(text)?;
    if terms.is_empty() {
        return Err(refused("a text-search query without lexemes"));
    }
    Ok(Tsquery { terms })
}

fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\\', "\\\\").replace('\'', "''"))
}

/// `tsvectorout`.
pub(crate) fn format_tsvector(v: &Tsvector) -> String {
    let items: Vec<String> = v
        .entries
        .iter()
        .map(|(word, positions)| {
            let list: Vec<String> = positions.iter().map(u16::to_string).collect();
            match list.is_empty() {
                true => quote(word),
                false => format!("{}:{}", quote(word), list.join(",")),
            }
        })
        .collect();
    items.join(" ")
}

/// `tsqueryout`.
pub(crate) fn format_tsquery(q: &Tsquery) -> String {
    q.terms
        .iter()
        .map(|t| quote(t))
        .collect::<Vec<_>>()
        .join(" & ")
}

/// `tsvectorin` for the plain forms: lexemes (quoted or not) of letters and digits,
/// each with optional positions; weights and escapes are refused.
pub(crate) fn parse_tsvector(text: &str) -> PgResult<Tsvector> {
    let mut entries = Vec::new();
    for item in text.split_ascii_whitespace() {
        let (word, positions) = item.split_once(':').unwrap_or((item, ""));
        let word = word
            .strip_prefix('\'')
            .and_then(|w| w.strip_suffix('\''))
            .unwrap_or(word);
        if word.is_empty() || !word.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(refused(format!("the tsvector text {item:?}")));
        }
        let mut list = Vec::new();
        if item.contains(':') {
            for p in positions.split(',') {
                let p: u16 = p
                    .parse()
                    .ok()
                    .filter(|p| *p >= 1)
                    .ok_or_else(|| refused(format!("the tsvector position in {item:?}")))?;
                list.push(p.min(POSITION_MAX));
            }
        }
        entries.push((word.to_string(), list));
    }
    Ok(normalise(entries))
}

/// `tsvector @@ tsquery`: every term present.
pub(crate) fn matches(v: &Tsvector, q: &Tsquery) -> bool {
    q.terms.iter().all(|t| find(v, t).is_some())
}

fn find<'v>(v: &'v Tsvector, term: &str) -> Option<&'v [u16]> {
    v.entries
        .binary_search_by(|(w, _)| w.as_bytes().cmp(term.as_bytes()))
        .ok()
        .map(|at| v.entries[at].1.as_slice())
}

/// The query's distinct terms in tsrank.c's order (bytewise), their positions in `v`.
fn sorted_terms<'v>(v: &'v Tsvector, q: &Tsquery) -> PgResult<Vec<Option<&'v [u16]>>> {
    let mut terms: Vec<&str> = q.terms.iter().map(String::as_str).collect();
    terms.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    terms.dedup();
    let found: Vec<Option<&[u16]>> = terms.iter().map(|t| find(v, t)).collect();
    if found.iter().flatten().any(|p| p.is_empty()) {
        return Err(refused("ranking a tsvector lexeme without positions"));
    }
    Ok(found)
}

/// tsrank.c's `word_distance`.
fn word_distance(distance: i32) -> f32 {
    if distance > 100 {
        return 1e-30;
    }
    (1.0 / (1.005 + 0.05 * ((distance as f32) as f64 / 1.5 - 2.0).exp())) as f32
}

/// `calc_rank_or`, every weight D.
fn rank_or(found: &[Option<&[u16]>]) -> f32 {
    let mut res: f32 = 0.0;
    for positions in found.iter().flatten() {
        let (mut resj, mut wjm, mut jm): (f32, f32, i32) = (0.0, -1.0, 0);
        for j in 0..positions.len() as i32 {
            resj += WEIGHT_D / ((j + 1) * (j + 1)) as f32;
            if WEIGHT_D > wjm {
                wjm = WEIGHT_D;
                jm = j;
            }
        }
        let term = wjm + resj - wjm / ((jm + 1) * (jm + 1)) as f32;
        res = (res as f64 + term as f64 / 1.644_934_066_85) as f32;
    }
    if !found.is_empty() {
        res /= found.len() as f32;
    }
    res
}

/// `calc_rank_and`, every weight D.
fn rank_and(found: &[Option<&[u16]>]) -> f32 {
    if found.len() < 2 {
        return rank_or(found);
    }
    let mut res: f32 = -1.0;
    for (i, here) in found.iter().enumerate() {
        let Some(here) = here else { continue };
        for there in found[..i].iter().flatten() {
            for l in here.iter() {
                for p in there.iter() {
                    let distance = (*l as i32 - *p as i32).abs();
                    if distance == 0 {
                        continue;
                    }
                    let curw =
                        ((WEIGHT_D * WEIGHT_D * word_distance(distance)) as f64).sqrt() as f32;
                    res = if res < 0.0 {
                        curw
                    } else {
                        (1.0 - (1.0 - res as f64) * (1.0 - curw as f64)) as f32
                    };
                }
            }
        }
    }
    res
}

/// `ts_rank(v, q)` (normalization 0).
pub(crate) fn ts_rank(v: &Tsvector, q: &Tsquery) -> PgResult<f32> {
    if v.entries.is_empty() || q.terms.is_empty() {
        return Ok(0.0);
    }
    let found = sorted_terms(v, q)?;
    let res = if q.terms.len() > 1 {
        rank_and(&found)
    } else {
        rank_or(&found)
    };
    Ok(if res < 0.0 { 1e-20 } else { res })
}

/// `ts_rank_cd(v, q)` (normalization 0): covers of the query's terms, each worth its
/// length over its weights' inverse sum, divided by one plus its noise words.
pub(crate) fn ts_rank_cd(v: &Tsvector, q: &Tsquery) -> PgResult<f32> {
    let found = sorted_terms(v, q)?;
    let wanted = found.len();
    // (position, term index), by position: get_docrep's document.
    let mut doc: Vec<(i32, usize)> = Vec::new();
    for (term, positions) in found.iter().enumerate() {
        for p in positions.iter().flat_map(|p| p.iter()) {
            doc.push((*p as i32, term));
        }
    }
    if doc.is_empty() {
        return Ok(0.0);
    }
    doc.sort_by_key(|(p, _)| *p);
    let inverse = 1.0 / (WEIGHT_D as f64);
    let mut wdoc = 0.0f64;
    let mut start = 0usize;
    while let Some((begin, end, p, q)) = cover(&doc, wanted, &mut start) {
        let inv_sum = inverse * (end - begin + 1) as f64;
        let cpos = (end - begin + 1) as f64 / inv_sum;
        let mut noise = (q - p) - (end - begin) as i32;
        if noise < 0 {
            noise = (end - begin) as i32 / 2;
        }
        wdoc += cpos / (1 + noise) as f64;
    }
    Ok(wdoc as f32)
}

/// tsrank.c's `Cover` for a query of ANDed terms: the next cover from `start`
/// (its first and last document entries and positions), `start` moved past its first.
fn cover(
    doc: &[(i32, usize)],
    wanted: usize,
    start: &mut usize,
) -> Option<(usize, usize, i32, i32)> {
    while *start < doc.len() {
        let mut seen = vec![false; wanted];
        let mut end = None;
        for (at, (_, term)) in doc.iter().enumerate().skip(*start) {
            seen[*term] = true;
            if seen.iter().all(|s| *s) {
                end = Some(at);
                break;
            }
        }
        let end = end?;
        let q = doc[end].0;
        let mut seen = vec![false; wanted];
        let mut at = end as i64;
        let (mut begin, mut p) = (end, i32::MAX);
        while at >= *start as i64 {
            seen[doc[at as usize].1] = true;
            if seen.iter().all(|s| *s) {
                if doc[at as usize].0 < p {
                    begin = at as usize;
                    p = doc[at as usize].0;
                }
                break;
            }
            at -= 1;
        }
        if p <= q {
            *start = at as usize + 1;
            return Some((begin, end, p, q));
        }
        *start += 1;
    }
    None
}

/// `tsvectorsend`: the count, then each lexeme (null-terminated), its position count
/// and positions (weight bits 0: D).
pub(crate) fn encode_tsvector(v: &Tsvector) -> Vec<u8> {
    let mut out = (v.entries.len() as i32).to_be_bytes().to_vec();
    for (word, positions) in &v.entries {
        out.extend(word.as_bytes());
        out.push(0);
        out.extend((positions.len() as u16).to_be_bytes());
        for p in positions {
            out.extend(p.to_be_bytes());
        }
    }
    out
}

/// `tsquerysend`: the items in prefix notation, an operator before its right operand and
/// then its left (`'a' & 'b'` is `&`, `'b'`, `'a'`).
pub(crate) fn encode_tsquery(q: &Tsquery) -> Vec<u8> {
    const QI_VAL: u8 = 1;
    const QI_OPR: u8 = 2;
    const OP_AND: u8 = 2;
    let count = 2 * q.terms.len() - 1;
    let mut out = (count as i32).to_be_bytes().to_vec();
    // ((t0 & t1) & t2): & t2 & t1 t0.
    for term in q.terms.iter().skip(1).rev() {
        out.extend([QI_OPR, OP_AND]);
        out.extend([QI_VAL, 0, 0]);
        out.extend(term.as_bytes());
        out.push(0);
    }
    out.extend([QI_VAL, 0, 0]);
    out.extend(q.terms[0].as_bytes());
    out.push(0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_and_queries_print_as_postgresql() {
        let v = to_tsvector("Like pizza and PIZZA like 123 abc123 123abc").unwrap();
        assert_eq!(
            format_tsvector(&v),
            "'123':6 '123abc':8 'abc123':7 'and':3 'like':1,5 'pizza':2,4"
        );
        let q = plainto_tsquery("pizza like").unwrap();
        assert_eq!(format_tsquery(&q), "'pizza' & 'like'");
        assert!(to_tsvector("a-b").is_err());
        assert!(to_tsvector("1e5").is_err());
    }

    #[test]
    fn ranks_match_postgresql() {
        let rank = |text: &str, query: &str, cd: bool| {
            let v = to_tsvector(text).unwrap();
            let q = plainto_tsquery(query).unwrap();
            if cd {
                ts_rank_cd(&v, &q).unwrap()
            } else {
                ts_rank(&v, &q).unwrap()
            }
        };
        assert_eq!(rank("like pizza a b c pizza like", "pizza like", true), 0.2);
        assert_eq!(
            rank("like pizza a b c pizza like", "pizza like", false),
            0.330_100_74
        );
        assert_eq!(rank("like pizza pizza", "pizza", false), 0.075_990_885);
        assert_eq!(rank("pizza x pizza", "pizza", true), 0.2);
        assert_eq!(rank("a b c a", "a c b", true), 0.2);
        assert_eq!(rank("a b c a", "a c b", false), 0.405_768_42);
        assert_eq!(rank("x y", "a c", false), 1e-20);
        assert_eq!(rank("x y", "a c", true), 0.0);
        assert_eq!(rank("a x x x x x x x x b", "a b", false), 0.051_744_01);
        assert_eq!(rank("like pizza", "pizza", true), 0.1);
    }
}
