; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 57 'pos-stripe': p = I*a + u, a = W*t + o: p = (I*W)*t + I*o + u, 0 <= o < W, 0 <= u < I
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun position () Int)
(declare-fun q!37 () Int)
(declare-fun q!39 () Int)
(declare-fun r!38 () Int)
(declare-fun r!40 () Int)
(assert
 (let (($t1 (>= r!38 0)))
 (let (($t2 (and (and (= position (+ (* interleave q!37) r!38)) $t1) (< r!38 interleave))))
 (let (($t3 (> interleave 0)))
 (=> $t3 $t2)))))
(assert
 (let (($t4 (and (and (= q!37 (+ (* dcp q!39) r!40)) (>= r!40 0)) (< r!40 dcp))))
 (let (($t5 (> dcp 0)))
 (=> $t5 $t4))))
(assert
 (let (($t6 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t6)))
(assert
 (let ((?t7 (- interleave 1)))
 (let ((?t8 (- position (* q!37 interleave))))
 (let (($t9 (<= ?t8 ?t7)))
 (let (($t10 (>= ?t8 0)))
 (let ((?t11 (- q!37 (* q!39 dcp))))
 (let (($t12 (>= ?t11 0)))
 (let (($t13 (= position (+ (+ (* (* interleave dcp) q!39) (* interleave ?t11)) ?t8))))
 (let (($t14 (and (and (and (and $t13 $t12) (<= ?t11 (- dcp 1))) $t10) $t9)))
 (not $t14))))))))))
(check-sat)
