; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 82 'ctx-end-stripe-pos': 0 <= u <= I - 1: r*I + u < rem iff u < min(max(rem - r*I, 0), I) (linear)
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun ctx () Int)
(declare-fun interleave () Int)
(declare-fun position () Int)
(declare-fun product!0 () Int)
(declare-fun product!1 () Int)
(declare-fun product!2 () Int)
(declare-fun product!3 () Int)
(assert
 (let ((?t1 (- ctx product!2)))
 (let ((?t2 (- ?t1 product!1)))
 (let (($t3 (>= ?t2 0)))
 (let ((?t4 (ite $t3 ?t2 0)))
 (let (($t5 (>= ?t4 interleave)))
 (let ((?t6 (ite $t5 interleave ?t4)))
 (let ((?t7 (+ product!3 ?t6)))
 (let ((?t8 (- ?t7 product!3)))
 (let ((?t9 (- position product!0)))
 (let (($t10 (< ?t9 ?t8)))
 (let ((?t11 (+ product!1 ?t9)))
 (let (($t12 (< ?t11 ?t1)))
 (let (($t13 (= $t12 $t10)))
 (let ((?t14 (- interleave 1)))
 (let (($t15 (<= ?t9 ?t14)))
 (let (($t16 (>= ?t9 0)))
 (let (($t17 (and $t16 $t15)))
 (let (($t18 (=> $t17 $t13)))
 (not $t18))))))))))))))))))))
(check-sat)
