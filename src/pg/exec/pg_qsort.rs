//! PostgreSQL's in-memory sort (`src/include/lib/sort_template.h`, the quicksort behind
//! `tuplesort`), step for step. It is not stable: rows whose keys tie come out in the
//! order its partitioning leaves them, which a client sees (`ORDER BY a` over rows equal
//! in `a`, or a window's peers). A stable sort agrees only while no partition step moves
//! a tie, so the model sorts as PostgreSQL does: the same comparisons on the same input
//! give the same permutation.

use std::cmp::Ordering;

/// Below this many elements, insertion sort (stable).
const INSERTION_MAX: usize = 7;
/// Above this many, the pivot is the median of three medians of three.
const NINTHER_MIN: usize = 40;

/// Sort `v` by `compare` as `pg_qsort` (sort_template.h's `ST_SORT`) does.
pub(crate) fn sort<T>(v: &mut [T], compare: &mut impl FnMut(&T, &T) -> Ordering) {
    let (mut a, mut n) = (0usize, v.len());
    loop {
        if n < INSERTION_MAX {
            insertion(&mut v[a..a + n], compare);
            return;
        }
        if presorted(&v[a..a + n], compare) {
            return;
        }
        let pivot = pivot(v, a, n, compare);
        v.swap(a, pivot);
        let (pa, pb, pc, pd) = partition(v, a, n, compare);
        let pn = a + n;
        let d1 = (pa - a).min(pb - pa);
        swap_n(v, a, pb - d1, d1);
        let d1 = (pd - pc).min(pn - pd - 1);
        swap_n(v, pb, pn - d1, d1);
        let (d1, d2) = (pb - pa, pd - pc);
        // Recurse on the smaller side, iterate on the larger (as the template does).
        if d1 <= d2 {
            if d1 > 1 {
                sort(&mut v[a..a + d1], compare);
            }
            if d2 <= 1 {
                return;
            }
            (a, n) = (pn - d2, d2);
        } else {
            if d2 > 1 {
                sort(&mut v[pn - d2..pn], compare);
            }
            if d1 <= 1 {
                return;
            }
            n = d1;
        }
    }
}

fn insertion<T>(v: &mut [T], compare: &mut impl FnMut(&T, &T) -> Ordering) {
    for m in 1..v.len() {
        let mut l = m;
        while l > 0 && compare(&v[l - 1], &v[l]) == Ordering::Greater {
            v.swap(l, l - 1);
            l -= 1;
        }
    }
}

fn presorted<T>(v: &[T], compare: &mut impl FnMut(&T, &T) -> Ordering) -> bool {
    v.windows(2)
        .all(|pair| compare(&pair[0], &pair[1]) != Ordering::Greater)
}

/// The pivot's index: the middle element, or a median of three (of nine past 40).
fn pivot<T>(v: &[T], a: usize, n: usize, compare: &mut impl FnMut(&T, &T) -> Ordering) -> usize {
    let mut pm = a + n / 2;
    if n > INSERTION_MAX {
        let (mut pl, mut pn) = (a, a + n - 1);
        if n > NINTHER_MIN {
            let d = n / 8;
            pl = med3(v, pl, pl + d, pl + 2 * d, compare);
            pm = med3(v, pm - d, pm, pm + d, compare);
            pn = med3(v, pn - 2 * d, pn - d, pn, compare);
        }
        pm = med3(v, pl, pm, pn, compare);
    }
    pm
}

fn med3<T>(
    v: &[T],
    a: usize,
    b: usize,
    c: usize,
    compare: &mut impl FnMut(&T, &T) -> Ordering,
) -> usize {
    let less = |x: usize, y: usize, compare: &mut dyn FnMut(&T, &T) -> Ordering| {
        compare(&v[x], &v[y]) == Ordering::Less
    };
    if less(a, b, compare) {
        match (less(b, c, compare), less(a, c, compare)) {
            (true, _) => b,
            (false, true) => c,
            (false, false) => a,
        }
    } else {
        let greater = compare(&v[b], &v[c]) == Ordering::Greater;
        match (greater, less(a, c, compare)) {
            (true, _) => b,
            (false, true) => a,
            (false, false) => c,
        }
    }
}

/// Bentley–McIlroy three-way partitioning around `v[a]`: keys equal to the pivot are
/// gathered at both ends, then swapped to the middle by the caller. Returns pa, pb, pc
/// and pd as the template names them (pc never falls below `a`: it stops one short of
/// pb, which starts past `a`).
fn partition<T>(
    v: &mut [T],
    a: usize,
    n: usize,
    compare: &mut impl FnMut(&T, &T) -> Ordering,
) -> (usize, usize, usize, usize) {
    let (mut pa, mut pb) = (a + 1, a + 1);
    let (mut pc, mut pd) = (a + n - 1, a + n - 1);
    loop {
        while pb <= pc {
            let r = compare(&v[pb], &v[a]);
            if r == Ordering::Greater {
                break;
            }
            if r == Ordering::Equal {
                v.swap(pa, pb);
                pa += 1;
            }
            pb += 1;
        }
        while pb <= pc {
            let r = compare(&v[pc], &v[a]);
            if r == Ordering::Less {
                break;
            }
            if r == Ordering::Equal {
                v.swap(pc, pd);
                pd -= 1;
            }
            pc -= 1;
        }
        if pb > pc {
            break;
        }
        v.swap(pb, pc);
        pb += 1;
        pc -= 1;
    }
    (pa, pb, pc, pd)
}

/// Swap the `n` elements from `a` with the `n` from `b`, pairwise.
fn swap_n<T>(v: &mut [T], a: usize, b: usize, n: usize) {
    for i in 0..n {
        v.swap(a + i, b + i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_any_sort_on_distinct_keys() {
        let mut seed = 7u64;
        let mut v: Vec<u64> = (0..500)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                seed >> 33
            })
            .collect();
        let mut expected = v.clone();
        expected.sort();
        sort(&mut v, &mut |a, b| a.cmp(b));
        assert_eq!(v, expected);
    }

    #[test]
    fn ties_are_sorted_but_not_kept_in_order() {
        let mut v: Vec<(i32, usize)> = [3, 2, 4, 4, 0, 1, 2, 4, 0, 1]
            .into_iter()
            .zip(0..)
            .collect();
        sort(&mut v, &mut |a, b| a.0.cmp(&b.0));
        let keys: Vec<i32> = v.iter().map(|p| p.0).collect();
        assert_eq!(keys, vec![0, 0, 1, 1, 2, 2, 3, 4, 4, 4]);
        let mut stable: Vec<(i32, usize)> = [3, 2, 4, 4, 0, 1, 2, 4, 0, 1]
            .into_iter()
            .zip(0..)
            .collect();
        stable.sort_by_key(|p| p.0);
        assert_ne!(
            v, stable,
            "a partition step moves ties, as PostgreSQL's does"
        );
    }
}
