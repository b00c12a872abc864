; chunkproof prove: v6-current / rocm / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 19 'split-inside': k <= kmax: k*align <= max(cap, 0) <= remaining - 1
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun ctx () Int)
(declare-fun interleave () Int)
(declare-fun lcm!0 () Int)
(declare-fun q!13 () Int)
(declare-fun q!15 () Int)
(declare-fun q!17 () Int)
(declare-fun q!19 () Int)
(declare-fun q!5 () Int)
(declare-fun q!7 () Int)
(declare-fun q!9 () Int)
(declare-fun r!14 () Int)
(declare-fun r!16 () Int)
(declare-fun rows () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let (($t1 (<= (+ rows (- (* q!19 interleave) (* q!9 interleave))) q!5)))
 (let (($t2 (= split_div_align q!15)))
 (let (($t3 (<= (+ rows (- (* q!17 interleave) (* q!9 interleave))) q!5)))
 (let (($t4 (and (and (>= split_div_align 0) (<= split_div_align q!15)) $t3)))
 (and $t4 (or $t2 (not $t1))))))))
(assert
 (let (($t5 (>= start_div_align 0)))
 (and (and $t5 (= start (* lcm!0 start_div_align))) (< start ctx))))
(assert
 (let (($t6 (>= r!16 0)))
 (let ((?t7 (* q!7 lcm!0)))
 (let ((?t8 (* q!13 lcm!0)))
 (let ((?t9 (ite (>= ?t7 ?t8) ?t8 ?t7)))
 (let (($t10 (and (= (ite (>= ?t9 0) ?t9 0) (+ (* lcm!0 q!15) r!16)) $t6)))
 (let (($t11 (> lcm!0 0)))
 (=> $t11 (and $t10 (< r!16 lcm!0))))))))))
(assert
 (let (($t12 (>= r!14 0)))
 (let (($t13 (and (= (- (- ctx start) 1) (+ (* lcm!0 q!13) r!14)) $t12)))
 (let (($t11 (> lcm!0 0)))
 (=> $t11 (and $t13 (< r!14 lcm!0)))))))
(assert
 (>= lcm!0 1))
(assert
 (let (($t14 (=> (<= (- q!15 split_div_align) 0) (<= (* lcm!0 (- q!15 split_div_align)) 0))))
 (let (($t15 (=> (>= (- q!15 split_div_align) 0) (>= (* lcm!0 (- q!15 split_div_align)) 0))))
 (let (($t16 (=> (<= (- q!15 split_div_align) (- 1)) (<= (* lcm!0 (- q!15 split_div_align)) (- lcm!0)))))
 (let (($t17 (=> (>= (- q!15 split_div_align) 1) (>= (* lcm!0 (- q!15 split_div_align)) lcm!0))))
 (let (($t18 (>= lcm!0 1)))
 (=> $t18 (and (and (and $t17 $t16) $t15) $t14))))))))
(assert
 (let ((?t19 (* lcm!0 split_div_align)))
 (let (($t20 (<= ?t19 0)))
 (let (($t21 (<= split_div_align 0)))
 (let (($t22 (and (=> (>= split_div_align 1) (>= ?t19 lcm!0)) (=> (<= split_div_align (- 1)) (<= ?t19 (- lcm!0))))))
 (let (($t23 (and (and $t22 (=> (>= split_div_align 0) (>= ?t19 0))) (=> $t21 $t20))))
 (let (($t18 (>= lcm!0 1)))
 (=> $t18 $t23))))))))
(assert
 (let (($t24 (and (>= (* split_div_align lcm!0) 0) (<= (* split_div_align lcm!0) (- (- ctx start) 1)))))
 (not $t24)))
(check-sat)
