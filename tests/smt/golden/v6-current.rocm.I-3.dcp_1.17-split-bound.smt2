; chunkproof prove: v6-current / rocm / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: dcp=1; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 17 'split-bound': a split piece leaves >= 1 token and keeps start a multiple of align
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
(declare-fun rows () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let (($t1 (>= start_div_align 0)))
 (and (and $t1 (= start (* block start_div_align))) (< start ctx))))
(assert
 (and (>= (* split_div_align block) 0) (<= (* split_div_align block) (- (- ctx start) 1))))
(assert
 (>= block 1))
(assert
 (let ((?t2 (* block split_div_align)))
 (let (($t3 (<= ?t2 0)))
 (let (($t4 (<= split_div_align 0)))
 (let (($t5 (and (=> (>= split_div_align 1) (>= ?t2 block)) (=> (<= split_div_align (- 1)) (<= ?t2 (- block))))))
 (let (($t6 (and (and $t5 (=> (>= split_div_align 0) (>= ?t2 0))) (=> $t4 $t3))))
 (let (($t7 (>= block 1)))
 (=> $t7 $t6))))))))
(assert
 (let (($t8 (=> (<= (- split_div_align 1) 0) (<= (* block (- split_div_align 1)) 0))))
 (let (($t9 (=> (>= (- split_div_align 1) 0) (>= (* block (- split_div_align 1)) 0))))
 (let (($t10 (=> (<= (- split_div_align 1) (- 1)) (<= (* block (- split_div_align 1)) (- block)))))
 (let (($t11 (=> (>= (- split_div_align 1) 1) (>= (* block (- split_div_align 1)) block))))
 (let (($t7 (>= block 1)))
 (=> $t7 (and (and (and $t11 $t10) $t9) $t8))))))))
(assert
 (let ((?t12 (* split_div_align block)))
 (let ((?t13 (+ start ?t12)))
 (let (($t14 (and (< ?t13 ctx) (= ?t13 (* block (+ start_div_align split_div_align))))))
 (let (($t15 (>= split_div_align 1)))
 (let (($t16 (=> (and (not (<= (+ rows (- ctx start)) S)) $t15) (and $t14 (>= ?t12 1)))))
 (not $t16)))))))
(check-sat)
