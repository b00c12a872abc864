; chunkproof prove: v6-current / rocm / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: dcp=1; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 31 'progress': a fresh chunk never closes empty: take_all or k >= 1 (the search's postcondition)
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (a counterexample to the invariant)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun block () Int)
(declare-fun ctx () Int)
(declare-fun q!9 () Int)
(declare-fun rows () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(assert
 (let (($t1 (= split_div_align q!9)))
 (let (($t2 (or $t1 (not (<= (+ rows (* (+ split_div_align 1) block)) S)))))
 (let (($t3 (and (and (>= split_div_align 0) (<= split_div_align q!9)) (<= (+ rows (* split_div_align block)) S))))
 (and $t3 $t2)))))
(assert
 (let (($t4 (>= rows 0)))
 (and $t4 (<= rows S))))
(assert
 (let ((?t5 (- ctx start)))
 (let (($t6 (<= ?t5 block)))
 (=> $t6 (<= ?t5 S)))))
(assert
 (let (($t7 (= split_div_align 0)))
 (=> $t7 (<= (* (+ split_div_align 1) block) S))))
(assert
 (let (($t8 (>= q!9 1)))
 (=> (> (- ctx start) block) $t8)))
(assert
 (let (($t9 (>= split_div_align 1)))
 (let (($t10 (<= (+ rows (- ctx start)) S)))
 (let (($t11 (= rows 0)))
 (let (($t12 (=> $t11 (or $t10 $t9))))
 (not $t12))))))
(check-sat)
