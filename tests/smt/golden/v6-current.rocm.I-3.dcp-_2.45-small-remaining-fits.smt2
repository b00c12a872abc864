; chunkproof prove: v6-current / rocm / I-3 (each context is covered exactly once, in order, by the chunk spans)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 45 'small-remaining-fits': remaining <= align: need(start, remaining) <= I*mA <= S // W
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun ctx () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm!0 () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun q!11 () Int)
(declare-fun q!5 () Int)
(declare-fun q!9 () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let ((?t1 (- ctx start)))
 (let (($t2 (<= ?t1 lcm!0)))
 (=> $t2 (<= q!11 (+ (* lcm_y!2 start_div_align) lcm_y!2))))))
(assert
 (let ((?t3 (* lcm_y!2 start_div_align)))
 (= q!9 ?t3)))
(assert
 (let ((?t4 (* interleave lcm_y!2)))
 (>= q!5 ?t4)))
(assert
 (let (($t5 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t5)))
(assert
 (let ((?t3 (* lcm_y!2 start_div_align)))
 (let ((?t6 (+ ?t3 lcm_y!2)))
 (let ((?t7 (- ?t6 q!11)))
 (let ((?t8 (* interleave ?t7)))
 (let (($t9 (and (=> (>= ?t7 1) (>= ?t8 interleave)) (=> (<= ?t7 (- 1)) (<= ?t8 (- interleave))))))
 (let (($t10 (and (and $t9 (=> (>= ?t7 0) (>= ?t8 0))) (=> (<= ?t7 0) (<= ?t8 0)))))
 (let (($t5 (>= interleave 1)))
 (=> $t5 $t10)))))))))
(assert
 (let (($t11 (=> (<= (- q!9 (* lcm_y!2 start_div_align)) 0) (<= (* interleave (- q!9 (* lcm_y!2 start_div_align))) 0))))
 (let (($t12 (=> (>= (- q!9 (* lcm_y!2 start_div_align)) 0) (>= (* interleave (- q!9 (* lcm_y!2 start_div_align))) 0))))
 (let ((?t13 (- interleave)))
 (let ((?t3 (* lcm_y!2 start_div_align)))
 (let ((?t14 (- q!9 ?t3)))
 (let ((?t15 (* interleave ?t14)))
 (let (($t16 (and (=> (>= ?t14 1) (>= ?t15 interleave)) (=> (<= ?t14 (- 1)) (<= ?t15 ?t13)))))
 (let (($t5 (>= interleave 1)))
 (=> $t5 (and (and $t16 $t12) $t11)))))))))))
(assert
 (let ((?t1 (- ctx start)))
 (let (($t2 (<= ?t1 lcm!0)))
 (let (($t17 (=> $t2 (<= (- (* q!11 interleave) (* q!9 interleave)) q!5))))
 (not $t17)))))
(check-sat)
