; chunkproof prove: v5-packed / cuda / I-1 (under DCP the workspace S is a multiple of W)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 18 'S-mod-W': S mod W == 0
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (a counterexample to the invariant)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun q!3 () Int)
(declare-fun q!5 () Int)
(assert
 (= S (* dcp (* (* interleave lcm_y!2) q!3))))
(assert
 (let ((?t1 (* (* interleave lcm_y!2) q!3)))
 (= q!5 ?t1)))
(assert
 (let (($t2 (= (- S (* q!5 dcp)) 0)))
 (not $t2)))
(check-sat)
