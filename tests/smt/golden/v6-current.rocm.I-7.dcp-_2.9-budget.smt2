; chunkproof prove: v6-current / rocm / I-7 (under DCP, per chunk, the padded local rows fit S/W)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 9 'budget': the chunk's padded local rows stay <= S // W after adding the piece (take_all or fits_k)
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun interleave () Int)
(declare-fun q!11 () Int)
(declare-fun q!15 () Int)
(declare-fun q!17 () Int)
(declare-fun q!19 () Int)
(declare-fun q!5 () Int)
(declare-fun q!9 () Int)
(declare-fun rows () Int)
(declare-fun split_div_align () Int)
(assert
 (let (($t1 (<= (+ rows (- (* q!19 interleave) (* q!9 interleave))) q!5)))
 (let (($t2 (= split_div_align q!15)))
 (let ((?t3 (+ rows (- (* q!17 interleave) (* q!9 interleave)))))
 (let (($t4 (<= ?t3 q!5)))
 (let (($t5 (and (and (>= split_div_align 0) (<= split_div_align q!15)) $t4)))
 (and $t5 (or $t2 (not $t1)))))))))
(assert
 (let ((?t3 (+ rows (- (* q!17 interleave) (* q!9 interleave)))))
 (let (($t4 (<= ?t3 q!5)))
 (let ((?t6 (+ rows (- (* q!11 interleave) (* q!9 interleave)))))
 (let (($t7 (<= ?t6 q!5)))
 (let (($t8 (not $t7)))
 (let (($t9 (and (=> $t7 $t7) (=> $t8 $t4))))
 (not $t9))))))))
(check-sat)
