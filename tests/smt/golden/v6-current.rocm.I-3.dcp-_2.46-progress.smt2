; chunkproof prove: v6-current / rocm / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 46 'progress': a fresh chunk never closes empty: take_all or k >= 1 (the search's postcondition)
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (a counterexample to the invariant)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun ctx () Int)
(declare-fun interleave () Int)
(declare-fun lcm!0 () Int)
(declare-fun q!11 () Int)
(declare-fun q!15 () Int)
(declare-fun q!17 () Int)
(declare-fun q!19 () Int)
(declare-fun q!5 () Int)
(declare-fun q!9 () Int)
(declare-fun rows () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(assert
 (let (($t1 (<= (+ rows (- (* q!19 interleave) (* q!9 interleave))) q!5)))
 (let (($t2 (= split_div_align q!15)))
 (let (($t3 (<= (+ rows (- (* q!17 interleave) (* q!9 interleave))) q!5)))
 (let (($t4 (and (and (>= split_div_align 0) (<= split_div_align q!15)) $t3)))
 (and $t4 (or $t2 (not $t1))))))))
(assert
 (let (($t5 (>= rows 0)))
 (and $t5 (<= rows q!5))))
(assert
 (let ((?t6 (- ctx start)))
 (let (($t7 (<= ?t6 lcm!0)))
 (=> $t7 (<= (- (* q!11 interleave) (* q!9 interleave)) q!5)))))
(assert
 (let (($t8 (= split_div_align 0)))
 (=> $t8 (<= (- (* q!19 interleave) (* q!9 interleave)) q!5))))
(assert
 (let (($t9 (>= q!15 1)))
 (=> (> (- ctx start) lcm!0) $t9)))
(assert
 (let (($t10 (>= split_div_align 1)))
 (let (($t11 (<= (+ rows (- (* q!11 interleave) (* q!9 interleave))) q!5)))
 (let (($t12 (= rows 0)))
 (let (($t13 (=> $t12 (or $t11 $t10))))
 (not $t13))))))
(check-sat)
