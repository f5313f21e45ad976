//! Access frequencies (thesis Table 5.1), shared-memory slots (Sec. 5.3.3) and the
//! variable selection algorithm (Table 5.2, Sec. 5.3.5).

use super::categories::Counts;

/// The three candidate lists of Table 5.1, each sorted by decreasing count (ties keep
/// the arrays' first-use order).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frequencies {
    /// center + off-center, for arrays with at least one off-center reference.
    pub one_plane: Vec<(String, u32)>,
    /// up-down, for arrays with more than two up-down references.
    pub three_planes: Vec<(String, u32)>,
    /// center references, for the register optimizer.
    pub center: Vec<(String, u32)>,
}

/// Table 5.1 over the per-array counts (in first-use order). Arrays that may not be
/// cached in shared memory (`shareable == false`: written arrays, arrays the optimizer
/// cannot stage) are left out of the shared-memory lists.
pub fn frequencies(counts: &[(String, Counts, bool)]) -> Frequencies {
    let mut f = Frequencies::default();
    for (name, c, shareable) in counts {
        if *shareable {
            let one = if c.off_center != 0 {
                c.center + c.off_center
            } else {
                0
            };
            if one > 0 {
                f.one_plane.push((name.clone(), one));
            }
            let three = if c.up_down > 2 { c.up_down } else { 0 };
            if three > 0 {
                f.three_planes.push((name.clone(), three));
            }
        }
        if c.center > 0 {
            f.center.push((name.clone(), c.center));
        }
    }
    // stable sorts: ties keep first-use order
    f.one_plane.sort_by_key(|e| std::cmp::Reverse(e.1));
    f.three_planes.sort_by_key(|e| std::cmp::Reverse(e.1));
    f.center.sort_by_key(|e| std::cmp::Reverse(e.1));
    f
}

/// Shared-memory slots: min(user limit, shared bytes / bytes of one plane).
pub fn slots(user_limit: u32, shared_bytes: u32, plane_bytes: u32) -> u32 {
    if plane_bytes == 0 {
        return user_limit;
    }
    user_limit.min(shared_bytes / plane_bytes)
}

/// The variable selection algorithm (Table 5.2): fills `slots` shared-memory slots with
/// one-plane and three-plane candidates, returning `(array, planes)` in grant order
/// (an array granted one plane and later three appears once, with 3).
///
/// Case 1: the two lists' heads are the same array: three planes only if they save more
/// than twice what one plane saves. Case 2: the three-plane head already has one plane:
/// two more planes must beat the next two one-plane candidates together. Case 3: the heads
/// differ: three planes must beat the next three one-plane candidates together. A
/// three-plane grant never takes more slots than remain.
pub fn select(f: &Frequencies, slots: u32) -> Vec<(String, u32)> {
    let one = &f.one_plane;
    let three = &f.three_planes;
    let mut selected: Vec<(String, u32)> = Vec::new();
    let (mut i1, mut i3) = (0usize, 0usize);
    let mut slots = slots as i64;
    let granted =
        |sel: &Vec<(String, u32)>, n: &str| sel.iter().find(|(s, _)| s == n).map(|(_, p)| *p);
    while slots > 0 && (i1 < one.len() || i3 < three.len()) {
        // skip candidates that already hold enough planes
        if i1 < one.len() && granted(&selected, &one[i1].0).is_some() {
            i1 += 1;
            continue;
        }
        if i3 < three.len() && granted(&selected, &three[i3].0) == Some(3) {
            i3 += 1;
            continue;
        }
        let v1 = one.get(i1);
        let v3 = three.get(i3);
        let ref1 = |k: usize| one.get(i1 + k).map(|v| v.1).unwrap_or(0);
        let grant_one = |sel: &mut Vec<(String, u32)>, i1: &mut usize, slots: &mut i64| {
            sel.push((one[*i1].0.clone(), 1));
            *i1 += 1;
            *slots -= 1;
        };
        match (v1, v3) {
            (Some(_), None) => grant_one(&mut selected, &mut i1, &mut slots),
            (None, Some((n3, _))) => {
                let have = granted(&selected, n3).unwrap_or(0);
                let need = 3 - have as i64;
                if need <= slots {
                    set_planes(&mut selected, n3, 3);
                    slots -= need;
                }
                i3 += 1;
            }
            (Some((n1, r1)), Some((n3, r3))) => {
                let have3 = granted(&selected, n3).unwrap_or(0);
                if n1 == n3 {
                    // case 1
                    if 2 * r1 >= *r3 || slots < 3 {
                        grant_one(&mut selected, &mut i1, &mut slots);
                    } else {
                        set_planes(&mut selected, n3, 3);
                        slots -= 3;
                        i1 += 1;
                        i3 += 1;
                    }
                } else if have3 == 1 {
                    // case 2: two more planes for var3, against var1 and the next one-plane candidate
                    if ref1(0) + ref1(1) >= *r3 || slots < 2 {
                        grant_one(&mut selected, &mut i1, &mut slots);
                    } else {
                        set_planes(&mut selected, n3, 3);
                        slots -= 2;
                        i3 += 1;
                    }
                } else {
                    // case 3: three planes for var3, against the next three one-plane candidates
                    if ref1(0) + ref1(1) + ref1(2) >= *r3 || slots < 3 {
                        grant_one(&mut selected, &mut i1, &mut slots);
                    } else {
                        set_planes(&mut selected, n3, 3);
                        slots -= 3;
                        i3 += 1;
                    }
                }
            }
            (None, None) => break,
        }
    }
    selected
}

fn set_planes(sel: &mut Vec<(String, u32)>, name: &str, planes: u32) {
    match sel.iter_mut().find(|(s, _)| s == name) {
        Some(e) => e.1 = planes,
        None => sel.push((name.to_string(), planes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists(one: &[(&str, u32)], three: &[(&str, u32)]) -> Frequencies {
        Frequencies {
            one_plane: one.iter().map(|(n, c)| (n.to_string(), *c)).collect(),
            three_planes: three.iter().map(|(n, c)| (n.to_string(), *c)).collect(),
            center: Vec::new(),
        }
    }

    /// Thesis Fig. 5.8: onePlaneList = [u:6, v:6, w:4, x:2], threePlanesList = [u:8].
    #[test]
    fn figure_5_8() {
        let f = lists(&[("u", 6), ("v", 6), ("w", 4), ("x", 2)], &[("u", 8)]);
        // 4 slots: u gets 3 planes, v one
        let mut s = select(&f, 4);
        s.sort();
        assert_eq!(s, vec![("u".to_string(), 3), ("v".to_string(), 1)]);
        // 3 slots: u, v and w one plane each
        let mut s = select(&f, 3);
        s.sort();
        assert_eq!(
            s,
            vec![
                ("u".to_string(), 1),
                ("v".to_string(), 1),
                ("w".to_string(), 1)
            ]
        );
    }

    #[test]
    fn a_three_plane_grant_never_exceeds_the_slots_left() {
        let f = lists(&[], &[("u", 40), ("v", 30)]);
        assert_eq!(select(&f, 2), vec![]);
        assert_eq!(select(&f, 5), vec![("u".to_string(), 3)]);
        assert_eq!(
            select(&f, 6),
            vec![("u".to_string(), 3), ("v".to_string(), 3)]
        );
    }

    #[test]
    fn frequencies_follow_table_5_1() {
        let c = |center, off, ud| Counts {
            center,
            off_center: off,
            up_down: ud,
            non_stencil: 0,
        };
        let f = frequencies(&[
            ("a".into(), c(1, 0, 2), true), // no off-center: registers only
            ("b".into(), c(1, 4, 2), true), // two up-down: not enough for 3 planes
            ("c".into(), c(2, 2, 3), true),
            ("d".into(), c(1, 6, 0), false), // written: not a shared candidate
        ]);
        assert_eq!(
            f.one_plane,
            vec![("b".to_string(), 5), ("c".to_string(), 4)]
        );
        assert_eq!(f.three_planes, vec![("c".to_string(), 3)]);
        assert_eq!(
            f.center,
            vec![
                ("c".to_string(), 2),
                ("a".to_string(), 1),
                ("b".to_string(), 1),
                ("d".to_string(), 1)
            ]
        );
        assert_eq!(slots(8, 48 * 1024, 18 * 18 * 8), 8);
        assert_eq!(slots(8, 16 * 1024, 34 * 34 * 8), 1);
    }
}
